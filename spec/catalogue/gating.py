"""CA: capability gating, rules CA-01..CA-05 of docs/rules.md. They bind every provider.

CA-01 and CA-05 are judged by the ``start`` oracle; the ordering and honesty rules are narrative.
"""

from __future__ import annotations

from ..rule import Rule, Source, family_rules
from ..vocabulary import MAX_SAFE_INTEGER, Edition, Family, Level
from ._examples import breaks, judged, narrative, obeys, on_acp, on_spawn

_SEED = "000_f18e7de65ba39cf4.txt"
_GATING = Source(document=_SEED, section="Capability gating keeps providers honest")
_UNSUPPORTED = {"code": "UNSUPPORTED_CAPABILITY"}


_ca = family_rules(Family.CA, _GATING)


RULES: tuple[Rule, ...] = (
    _ca(
        1,
        "unsupported-rejected",
        "A start that asks a provider for a control it does not advertise (maxDepth needs "
        "depthLimit, persona, toolFilter and outputSchema their namesakes, a spawn policy "
        "spawnPolicy, a model modelSelection), whether the request, a preset or a descriptor "
        "asks, fails with UNSUPPORTED_CAPABILITY naming the capability. It is never silently "
        "downgraded.",
        "A backend that quietly ignored a filter or a cap would look configured while "
        "enforcing nothing; refusing keeps what a deployment asks for and what it gets equal.",
        (
            *judged("start", on_acp(Edition.REQUEST_CONTROLS, {"maxDepth": 2}),
                    obeys("maxDepth to a provider without depthLimit", _UNSUPPORTED),
                    breaks("the cap dropped silently", {"ok": True})),
            *judged("start", on_acp(Edition.REQUEST_CONTROLS, {"maxDepth": 0}),
                    obeys("maxDepth 0 is still refused as unsupported, never applied",
                          _UNSUPPORTED),
                    breaks("the unadvertised cap applied instead", {"code": "DEPTH_EXCEEDED"})),
            *judged("start", on_acp(Edition.PRESET_COMPOSITION, {"preset": "lead"},
                                    advertises=("persona",),
                                    presets={"lead": {"spawnPolicy": {"allow": ["lead"]}}}),
                    obeys("a preset's spawn policy asks for spawnPolicy", _UNSUPPORTED)),
            *judged("start", on_acp(Edition.REQUEST_CONTROLS, {"model": "small-model"}),
                    breaks("a requested model dropped silently", {"ok": True})),
            *judged("start", on_acp(Edition.PRESET_COMPOSITION, {"preset": "reviewer"},
                                    advertises=("depthLimit",),
                                    presets={"reviewer": {"persona": "You review."}}),
                    obeys("a preset's persona asks too", _UNSUPPORTED)),
            # A start from a parent at 2^53-1 (its child would overflow, DE-08) asking for a
            # control the provider lacks: DE-08 fixes no code, CA-01 does.
            *judged("start", on_acp(Edition.REQUEST_CONTROLS, {"persona": "You review."},
                                    parent={"header": MAX_SAFE_INTEGER}),
                    obeys("asked from a parent whose child would overflow: still unsupported",
                          _UNSUPPORTED),
                    breaks("the parent's depth reported instead", {"code": "INVALID_DEPTH"})),
        ),
        stateful=True,
    ),
    _ca(
        2,
        "before-provider",
        "The UNSUPPORTED_CAPABILITY failure happens before the provider is called, so there is "
        "no run, no lifecycle event, no child and no model request.",
        "The runtime checks a requested control before handing the start to the provider, so "
        "an unsupported request leaves no trace for observers or cleanup.",
        narrative({"provider": "acp", "asks": "toolFilter"},
                  obeys("refused up front", {"error": "UNSUPPORTED_CAPABILITY",
                                             "provider calls": 0, "events": []}),
                  breaks("the provider started, then the run was cancelled",
                         {"error": "UNSUPPORTED_CAPABILITY", "events": ["run-started"]})),
    ),
    _ca(
        3,
        "capability-first",
        "The capability check should come before any check of the value, so maxDepth -1 sent "
        "to a provider without depthLimit reports UNSUPPORTED_CAPABILITY.",
        "Telling a caller to fix a value the provider could never honour wastes a round trip; "
        "the missing capability is the real problem.",
        narrative({"providers": {"acp": []}, "request": {"maxDepth": -1}},
                  obeys("unsupported and invalid at once", {"code": "UNSUPPORTED_CAPABILITY"}),
                  breaks("the value error reported first", {"code": "INVALID_DEPTH"})),
        level=Level.SHOULD,
        source=Source(document="RULES.md", section="Decision"),
    ),
    _ca(
        4,
        "honest-advertising",
        "Each capability a provider advertises must pass every rule of its family; a single "
        "failing rule fails the whole capability as false advertising, never a partial pass.",
        "Provider authors must advertise each control accurately; a capability that works "
        "only in part cannot be relied on by a deployment.",
        narrative({"advertised": ["toolFilter"], "failing rules": ["TF-09"]},
                  obeys("toolFilter advertised, TF-09 fails", {"toolFilter": "FAILED"}),
                  breaks("certified with a failing rule", {"toolFilter": "CERTIFIED"})),
        source=Source(document=_SEED, section="Consequences"),
    ),
    _ca(
        5,
        "no-provider",
        "Starting a child on a provider name that is not registered fails with NO_PROVIDER, "
        "and nothing is created.",
        "A misspelled provider must be an explicit error, never a fallback to some other "
        "backend with different capabilities.",
        judged("start", on_spawn(Edition.REQUEST_CONTROLS, {"provider": "spwan"}),
               obeys("a misspelled provider", {"code": "NO_PROVIDER"}),
               breaks("a fallback to another provider", {"ok": True})),
        stateful=True,
        source=Source(document="RULES.md", section="Decision"),
    ),
)
