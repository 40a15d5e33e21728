"""FR: first-request consistency, rules FR-01..FR-05 of docs/rules.md. They bind every provider.

These rules compare observations over a child's life (publication, requests, resume), so their
examples are narrative; FR-03's setup failures are also shown through the ``start`` oracle.
"""

from __future__ import annotations

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import Family

_SEED = "000_f18e7de65ba39cf4.txt"
_UNPUBLISHED = Source(document=_SEED, section="Unpublished setup makes the first request correct")
_ALL = ["depthLimit", "persona", "toolFilter", "outputSchema"]


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
            Example(
                title="a reviewer preset's first request",
                given={"preset": {"persona": "You review.", "toolFilter": {"allow": ["read"]}}},
                observed={"system starts with": "You review.", "tools": ["read"]},
                holds=True,
            ),
            Example(
                title="the filter arrives on the second request",
                given={"preset": {"toolFilter": {"allow": ["read"]}}},
                observed={"request 1 tools": ["read", "write"], "request 2 tools": ["read"]},
                holds=False,
            ),
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
            Example(
                title="published after setup",
                given={"events": ["setup-done", "child-published"]},
                observed={"view at publication": "final"},
                holds=True,
            ),
            Example(
                title="listed while its filter is being installed",
                given={"events": ["child-published", "filter-installed"]},
                observed={"view at publication": "unfiltered"},
                holds=False,
            ),
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
            Example(
                title="a filter naming an unknown tool",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"spawn": _ALL},
                    "globals": ["read"],
                    "request": {
                        "provider": "spawn",
                        "prompt": "go",
                        "toolFilter": {"allow": ["raed"]},
                    },
                },
                observed={"code": "INVALID_TOOL_FILTER"},
                holds=True,
            ),
            Example(
                title="a bad persona template started anyway",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"spawn": _ALL},
                    "request": {"provider": "spawn", "prompt": "go", "persona": "Hi {{x}}"},
                },
                observed={"ok": True},
                holds=False,
            ),
            Example(
                title="nothing left behind",
                given={"setup fails": "INVALID_OUTPUT_SCHEMA"},
                observed={"sessions": 0, "model requests": 0, "parent": "unchanged"},
                holds=True,
            ),
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
            Example(
                title="resumed reviewer",
                given={"descriptor": {"persona": "You review.", "toolFilter": {"deny": ["write"]}}},
                observed={"first resumed request tools exclude": "write"},
                holds=True,
            ),
            Example(
                title="descriptor names a tool no longer registered",
                given={"descriptor": {"toolFilter": {"allow": ["gone"]}}},
                observed={"resumed": True, "filter": "dropped"},
                holds=False,
            ),
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
            Example(
                title="a global registered mid-run under a deny-only filter",
                given={"filter": {"deny": ["write"]}, "registered later": "lint"},
                observed={"request 2 tools add": ["lint"], "persona": "unchanged"},
                holds=True,
            ),
            Example(
                title="persona changes on the third request",
                given={"persona": "You review."},
                observed={"request 3 system starts with": "You are a helpful assistant."},
                holds=False,
            ),
        ),
    ),
)
