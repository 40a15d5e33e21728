"""TF: the tool filter (capability ``toolFilter``), rules TF-09..TF-16 of docs/rules.md: the
filter over a live registry and across scopes.

Tools registered or removed after a filter was installed (TF-09..TF-11), one resolver for the
wire, lookup, execution and the run_code SDK (TF-12), scopes kept apart (TF-13), and the
filter's own lifetime and the prompt that follows it (TF-14..TF-16). Stateful rules carry
``view`` or ``wire`` examples that the oracle judges (:mod:`subagent_tck.spec.judge`); behaviour
over time (dispose, copying) is narrative. TF-01..TF-08 are :mod:`.tool_filter`'s.
"""

from __future__ import annotations

from ..rule import Rule, Source
from ..vocabulary import Level
from ._examples import breaks, judged, narrative, obeys
from .tool_filter import _scope, _tf

#: TF-09, TF-10: late is registered after the restriction was installed.
_LATE = ["a", "b", "late"]
#: TF-11: b was a registered global when {allow: [a, b]} was installed, and is gone now.
_REMOVED_B = {"globals": ["a", "c"], "removed": ["b"], "restrictions": [{"allow": ["a", "b"]}]}

RULES: tuple[Rule, ...] = (
    _tf(
        9,
        "live-deny",
        "A restriction with only a deny list lets through a global tool registered after it "
        "was installed, unless the list names that tool.",
        "The global registry stays live for hot registration; a deny list forbids what it "
        "names and nothing else, including tools that arrive later.",
        judged("view", _scope({"deny": ["b"]}, tools=_LATE),
               obeys("late is registered after {deny: [b]}", ["a", "late"]),
               breaks("the late tool frozen out", ["a"])),
    ),
    _tf(
        10,
        "live-allow",
        "An allow list keeps out a global tool registered after it unless the list names that "
        "tool; a named tool that is removed and registered again becomes visible again.",
        "An allow list is a live predicate over the registry rather than a snapshot, so what "
        "it names is visible whenever it exists, and nothing else ever is.",
        (
            *judged("view", _scope({"allow": ["a", "b"]}, tools=_LATE),
                    obeys("late is registered after {allow: [a, b]}", ["a", "b"]),
                    breaks("the late tool let in", ["a", "b", "late"])),
            *judged("view", _scope({"allow": ["a", "b"]}, tools=["a", "late", "b"]),
                    obeys("b removed and registered again", ["a", "b"])),
        ),
    ),
    _tf(
        11,
        "live-removal",
        "Unregistering a global tool takes it out of every view immediately. Restrictions that "
        "named it remain installed and remain valid.",
        "Views are resolved from the live registry; a tool that no longer exists cannot be "
        "offered, and its absence must not break filters installed while it existed.",
        judged("view", _REMOVED_B,
               obeys("b unregistered after {allow: [a, b]}", ["a"]),
               breaks("the removed tool still offered", ["a", "b"])),
    ),
    _tf(
        12,
        "one-resolver",
        "For a scope, the tool schemas on the wire, name lookup, execution and the run_code "
        "SDK bindings all come from the same set. A forged call to a tool missing from the "
        "schemas gets an UNKNOWN_TOOL error result without running the tool, and the turn "
        "continues; the SDK binds exactly the visible tools other than run_code.",
        "Hiding only the schemas would let a model execute a tool the prompt says does not "
        "exist, through code mode or a forged call; one resolver keeps presentation and "
        "execution from drifting apart.",
        (
            *judged("wire", _scope({"deny": ["c"]}, local=["x"], mode="ptc"),
                    obeys("ptc mode: the wire carries run_code, the SDK the rest",
                          {"schemas": ["run_code"], "sdk": ["a", "b", "x"]}),
                    breaks("the SDK binds a filtered tool",
                           {"schemas": ["run_code"], "sdk": ["a", "b", "c", "x"]})),
            *judged("wire", _scope({"deny": ["c"]}, mode="both"),
                    obeys("both mode: every visible tool on the wire",
                          {"schemas": ["a", "b", "run_code"], "sdk": ["a", "b"]})),
        ),
    ),
    _tf(
        13,
        "scope-isolation",
        "Whatever one scope installs, restrictions or local tools, leaves every other scope's "
        "view as it was: the parent's, a sibling's and the global view alike.",
        "Registration is flat: a scope owns its own contributions, and a child's composition "
        "must not leak into the agent that started it or into its siblings.",
        (
            *narrative({"child installs": {"allow": ["a"]}, "parent view before": ["a", "b"]},
                       obeys("a child restricts itself", {"parent view after": ["a", "b"]})),
            *narrative({"child registers local": "notes", "parent view before": ["a"]},
                       breaks("the child's local tool appears in the parent",
                              {"parent view after": ["a", "notes"]})),
        ),
        stateful=False,
    ),
    _tf(
        14,
        "lift-on-dispose",
        "Disposing a restriction removes exactly that restriction and no other, and disposing "
        "the same restriction a second time does no harm.",
        "Restrictions are owned by whoever installed them; lifting one must not disturb the "
        "others, and cleanup paths that run twice must stay safe.",
        (
            *narrative({"installed": [{"allow": ["a", "b"]}, {"deny": ["b"]}], "dispose": 2},
                       obeys("dispose one of two", {"view": ["a", "b"]})),
            *narrative({"installed": [{"allow": ["a"]}], "dispose": "twice"},
                       breaks("second dispose fails or lifts another restriction",
                              {"error": "already disposed"})),
        ),
        stateful=False,
        source=Source(document="RULES.md", section="Decision"),
    ),
    _tf(
        15,
        "values-copied",
        "Mutating the caller's allow or deny lists, or the object that holds them, after the "
        "restriction was installed has no effect on it. This applies to in-process targets "
        "only.",
        "A restriction validated at installation must stay the one that was validated; "
        "sharing the caller's list would let later edits bypass the checks.",
        narrative({"installed": {"allow": ["a"]}, "then": "caller's list.append('b')"},
                  obeys("caller appends to its allow list", {"view": ["a"]}),
                  breaks("the append takes effect", {"view": ["a", "b"]})),
        level=Level.SHOULD,
        stateful=False,
        source=Source(document="RULES.md", section="Decision"),
    ),
    _tf(
        16,
        "guidance-follows-visibility",
        "A prompt section that explains how to use a tool, such as the subagent tool's or a "
        "file or web tool's guidance, is left out of the prompt of a scope where that tool is "
        "hidden, while unrelated prose stays untouched.",
        "Guidance for a tool the model cannot call invites calls that fail; plugins decide "
        "their own sections from the scope's view instead of a rewriting pass.",
        narrative({"restriction": {"deny": ["web_search"]}},
                  obeys("web tool hidden, its guidance gone",
                        {"prompt has web guidance": False, "prompt has house rules": True}),
                  breaks("guidance for a hidden tool still present",
                         {"prompt has web guidance": True})),
        level=Level.SHOULD,
        stateful=False,
    ),
)
