"""CA: capability gating, rules CA-01..CA-05 of docs/rules.md. They bind every provider.

CA-01 and CA-05 are judged by the ``start`` oracle; the ordering and honesty rules are narrative.
"""

from __future__ import annotations

from typing import Any

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import MAX_SAFE_INTEGER, Family, Level

_SEED = "000_f18e7de65ba39cf4.txt"
_GATING = Source(document=_SEED, section="Capability gating keeps providers honest")
_ALL = ["depthLimit", "persona", "toolFilter", "outputSchema"]
_UNSUPPORTED = {"code": "UNSUPPORTED_CAPABILITY"}
#: A start from a parent at 2^53-1 (its child would overflow, DE-08) asking for a control the
#: provider lacks: DE-08 fixes no code, CA-01 does.
_FROM_THE_TOP: dict[str, Any] = {
    "edition": "request-controls",
    "providers": {"acp": []},
    "parent": {"header": MAX_SAFE_INTEGER},
    "request": {"provider": "acp", "prompt": "go", "persona": "You review."},
}


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
            Example(
                title="maxDepth to a provider without depthLimit",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"acp": []},
                    "request": {"provider": "acp", "prompt": "go", "maxDepth": 2},
                },
                observed=_UNSUPPORTED,
                holds=True,
            ),
            Example(
                title="the cap dropped silently",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"acp": []},
                    "request": {"provider": "acp", "prompt": "go", "maxDepth": 2},
                },
                observed={"ok": True},
                holds=False,
            ),
            Example(
                title="maxDepth 0 is still refused as unsupported, never applied",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"acp": []},
                    "request": {"provider": "acp", "prompt": "go", "maxDepth": 0},
                },
                observed=_UNSUPPORTED,
                holds=True,
            ),
            Example(
                title="the unadvertised cap applied instead",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"acp": []},
                    "request": {"provider": "acp", "prompt": "go", "maxDepth": 0},
                },
                observed={"code": "DEPTH_EXCEEDED"},
                holds=False,
            ),
            Example(
                title="a preset's spawn policy asks for spawnPolicy",
                oracle="start",
                given={
                    "edition": "preset-composition",
                    "providers": {"acp": ["persona"]},
                    "presets": {"lead": {"spawnPolicy": {"allow": ["lead"]}}},
                    "request": {"provider": "acp", "prompt": "go", "preset": "lead"},
                },
                observed=_UNSUPPORTED,
                holds=True,
            ),
            Example(
                title="a requested model dropped silently",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"acp": []},
                    "request": {"provider": "acp", "prompt": "go", "model": "small-model"},
                },
                observed={"ok": True},
                holds=False,
            ),
            Example(
                title="a preset's persona asks too",
                oracle="start",
                given={
                    "edition": "preset-composition",
                    "providers": {"acp": ["depthLimit"]},
                    "presets": {"reviewer": {"persona": "You review."}},
                    "request": {"provider": "acp", "prompt": "go", "preset": "reviewer"},
                },
                observed=_UNSUPPORTED,
                holds=True,
            ),
            Example(
                title="asked from a parent whose child would overflow: still unsupported",
                oracle="start",
                given=_FROM_THE_TOP,
                observed=_UNSUPPORTED,
                holds=True,
            ),
            Example(
                title="the parent's depth reported instead",
                oracle="start",
                given=_FROM_THE_TOP,
                observed={"code": "INVALID_DEPTH"},
                holds=False,
            ),
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
        (
            Example(
                title="refused up front",
                given={"provider": "acp", "asks": "toolFilter"},
                observed={"error": "UNSUPPORTED_CAPABILITY", "provider calls": 0, "events": []},
                holds=True,
            ),
            Example(
                title="the provider started, then the run was cancelled",
                given={"provider": "acp", "asks": "toolFilter"},
                observed={"error": "UNSUPPORTED_CAPABILITY", "events": ["run-started"]},
                holds=False,
            ),
        ),
    ),
    _ca(
        3,
        "capability-first",
        "The capability check should come before any check of the value, so maxDepth -1 sent "
        "to a provider without depthLimit reports UNSUPPORTED_CAPABILITY.",
        "Telling a caller to fix a value the provider could never honour wastes a round trip; "
        "the missing capability is the real problem.",
        (
            Example(
                title="unsupported and invalid at once",
                given={"providers": {"acp": []}, "request": {"maxDepth": -1}},
                observed={"code": "UNSUPPORTED_CAPABILITY"},
                holds=True,
            ),
            Example(
                title="the value error reported first",
                given={"providers": {"acp": []}, "request": {"maxDepth": -1}},
                observed={"code": "INVALID_DEPTH"},
                holds=False,
            ),
        ),
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
        (
            Example(
                title="toolFilter advertised, TF-09 fails",
                given={"advertised": ["toolFilter"], "failing rules": ["TF-09"]},
                observed={"toolFilter": "FAILED"},
                holds=True,
            ),
            Example(
                title="certified with a failing rule",
                given={"advertised": ["toolFilter"], "failing rules": ["TF-09"]},
                observed={"toolFilter": "CERTIFIED"},
                holds=False,
            ),
        ),
        source=Source(document=_SEED, section="Consequences"),
    ),
    _ca(
        5,
        "no-provider",
        "Starting a child on a provider name that is not registered fails with NO_PROVIDER, "
        "and nothing is created.",
        "A misspelled provider must be an explicit error, never a fallback to some other "
        "backend with different capabilities.",
        (
            Example(
                title="a misspelled provider",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"spawn": _ALL},
                    "request": {"provider": "spwan", "prompt": "go"},
                },
                observed={"code": "NO_PROVIDER"},
                holds=True,
            ),
            Example(
                title="a fallback to another provider",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"spawn": _ALL},
                    "request": {"provider": "spwan", "prompt": "go"},
                },
                observed={"ok": True},
                holds=False,
            ),
        ),
        stateful=True,
        source=Source(document="RULES.md", section="Decision"),
    ),
)
