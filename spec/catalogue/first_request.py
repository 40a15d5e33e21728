"""FR: first-request consistency, rules FR-01..FR-05 of docs/rules.md. They bind every provider.

These rules compare observations over a child's life (publication, requests, resume), so their
examples are narrative; FR-03's setup failures are also shown through the ``start`` oracle.
"""

from __future__ import annotations

from ..rule import Rule, Source, family_rules
from ..vocabulary import Edition, Family
from ._examples import breaks, judged, narrative, obeys, on_spawn

_SEED = "000_f18e7de65ba39cf4.txt"
_UNPUBLISHED = Source(document=_SEED, section="Unpublished setup makes the first request correct")


_fr = family_rules(Family.FR, _UNPUBLISHED)


RULES: tuple[Rule, ...] = (
    _fr(
        1,
        "first-request-complete",
        "The very first model request of a child already carries its whole composition: the "
        "persona, the filtered tool schemas including scope-local ones such as "
        "structured_output, and run_code when the presentation mode offers it.",
        "These controls shape the first request, so they cannot be installed once the child "
        "is running; a first turn with the wrong role or tools cannot be taken back.",
        (
            *narrative({"preset": {"persona": "You review.", "toolFilter": {"allow": ["read"]}}},
                       obeys("a reviewer preset's first request",
                             {"system starts with": "You review.", "tools": ["read"]})),
            *narrative({"preset": {"toolFilter": {"allow": ["read"]}}},
                       breaks("the filter arrives on the second request",
                              {"request 1 tools": ["read", "write"],
                               "request 2 tools": ["read"]})),
        ),
    ),
    _fr(
        2,
        "unpublished-setup",
        "No observer can see the child through lookup, the session list or a lifecycle event "
        "until its setup has finished, and when it does become visible its view and prompt "
        "are already final.",
        "If a child were observable mid-setup, someone could act on it with the deployment "
        "persona or the unfiltered tool set before its own composition was installed.",
        (
            *narrative({"events": ["setup-done", "child-published"]},
                       obeys("published after setup", {"view at publication": "final"})),
            *narrative({"events": ["child-published", "filter-installed"]},
                       breaks("listed while its filter is being installed",
                              {"view at publication": "unfiltered"})),
        ),
    ),
    _fr(
        3,
        "rollback",
        "If setup fails (a filter naming an unknown tool, a bad persona template, an invalid "
        "output schema), the start fails with a clear error, nothing is published, no model "
        "request is made, and the parent carries on unchanged.",
        "A failed setup rolls back the private child, so no one ever holds a child that runs "
        "with only part of its requested composition.",
        (
            *judged("start", on_spawn(Edition.REQUEST_CONTROLS,
                                      {"toolFilter": {"allow": ["raed"]}}, global_tools=["read"]),
                    obeys("a filter naming an unknown tool", {"code": "INVALID_TOOL_FILTER"})),
            *judged("start", on_spawn(Edition.REQUEST_CONTROLS, {"persona": "Hi {{x}}"}),
                    breaks("a bad persona template started anyway", {"ok": True})),
            *narrative({"setup fails": "INVALID_OUTPUT_SCHEMA"},
                       obeys("nothing left behind",
                             {"sessions": 0, "model requests": 0, "parent": "unchanged"})),
        ),
    ),
    _fr(
        4,
        "cold-resume",
        "A child resumed cold gets its historical persona and tool filter back from its "
        "descriptor before it is published, so its first resumed request is already composed. "
        "A descriptor that can no longer be applied makes the resume fail cleanly.",
        "Historical overrides must survive a restart without defining new providers; applying "
        "them while the child is unpublished keeps resumed requests as consistent as new ones.",
        (
            *narrative({"descriptor": {"persona": "You review.",
                                       "toolFilter": {"deny": ["write"]}}},
                       obeys("resumed reviewer", {"first resumed request tools exclude": "write"})),
            *narrative({"descriptor": {"toolFilter": {"allow": ["gone"]}}},
                       breaks("descriptor names a tool no longer registered",
                              {"resumed": True, "filter": "dropped"})),
        ),
        source=Source(document=_SEED, section="Decision"),
    ),
    _fr(
        5,
        "stable-composition",
        "Later requests of a child keep the composition its first request had, changing only "
        "as the live registry changes under the tool filter rules TF-09 to TF-11.",
        "A child whose first prompt and later prompts disagree is exactly the inconsistency "
        "unpublished setup exists to prevent.",
        (
            *narrative({"filter": {"deny": ["write"]}, "registered later": "lint"},
                       obeys("a global registered mid-run under a deny-only filter",
                             {"request 2 tools add": ["lint"], "persona": "unchanged"})),
            *narrative({"persona": "You review."},
                       breaks("persona changes on the third request",
                              {"request 3 system starts with": "You are a helpful assistant."})),
        ),
    ),
)
