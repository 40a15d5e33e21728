"""TF: the tool filter (capability ``toolFilter``), rules TF-01..TF-08 of docs/rules.md: what one
scope's filters let through, and which filters can be installed at all.

Stateful rules carry ``view`` or ``restriction`` examples that the oracle judges
(:mod:`subagent_tck.spec.judge`). The family's later rules, the filter over a live registry and
across scopes (TF-09..TF-16), are :mod:`.tool_filter_live`'s.
"""

from __future__ import annotations

from typing import Any

from ..rule import Rule, Source, family_rules
from ..vocabulary import Capability, Family
from ._examples import breaks, judged, obeys, stated

_SEED = "000_f18e7de65ba39cf4.txt"
_FILTERING = Source(document=_SEED, section="Tool filtering is one live global-view rule")
_ABC = ["a", "b", "c"]
_BAD = {"code": "INVALID_TOOL_FILTER"}


def _scope(*restrictions: dict[str, Any], tools: list[str] = _ABC, local: list[str] | None = None,
           mode: str | None = None) -> dict[str, Any]:
    """The ``given`` of a ``view`` or ``wire`` example: the global ``tools``, the scope's
    ``restrictions`` (in the order installed), its ``local`` tools and its presentation mode."""
    return stated(globals=tools, restrictions=list(restrictions) or None, locals=local, mode=mode)


def _installing(restriction: dict[str, Any], tools: list[str] = _ABC) -> dict[str, Any]:
    """The ``given`` of a ``restriction`` example: ``restriction`` installed over ``tools``."""
    return {"globals": tools, "restriction": restriction}


_tf = family_rules(Family.TF, _FILTERING, capability=Capability.TOOL_FILTER,
                   stateful=True)


RULES: tuple[Rule, ...] = (
    _tf(
        1,
        "allow-before-deny",
        "A single restriction lets a global tool through only when the name passes the allow "
        "list (if there is one) and is not on the deny list (if there is one). Given both "
        "lists, what remains is the allow list with the denied names taken out.",
        "The two lists answer different questions; fixing their combination as allow first, "
        "then deny, makes a filter with both lists mean the same thing everywhere.",
        (
            *judged("view", _scope({"allow": ["a", "b"], "deny": ["b"]}),
                    obeys("both lists: allow minus deny", ["a"]),
                    breaks("deny ignored when the name is allowed", ["a", "b"])),
            *judged("view", _scope({"deny": ["c"]}), obeys("deny only", ["a", "b"])),
        ),
    ),
    _tf(
        2,
        "intersection",
        "When a scope holds several restrictions, a global tool is visible only if each of them "
        "admits it. The order in which they were installed makes no difference.",
        "Several parties may narrow one scope; intersecting means no restriction can widen what "
        "another one hid, whatever order they arrive in.",
        (
            *judged("view", _scope({"allow": ["a", "b"]}, {"deny": ["b"]}),
                    obeys("allow then deny", ["a"])),
            *judged("view", _scope({"deny": ["b"]}, {"allow": ["a", "b"]}),
                    obeys("deny then allow: same view", ["a"])),
            *judged("view", _scope({"allow": ["a", "b"]}, {"deny": ["b"]}),
                    breaks("the last restriction alone decides", ["a", "c"])),
        ),
    ),
    _tf(
        3,
        "empty-lists",
        "An empty allow list is a valid restriction that hides every global tool, while the "
        "scope's own tools and the reserved run_code remain. An empty deny list is also valid "
        "and hides nothing.",
        "Hiding every global tool is a legitimate wish (a child that may only use what its "
        "scope brings), so an empty allow list must mean exactly that rather than an error.",
        (
            *judged("view", _scope({"allow": []}, local=["notes"], mode="both"),
                    obeys("allow: [] keeps locals and run_code",
                          ["notes:local", "run_code:reserved"])),
            *judged("view", _scope({"allow": []}, local=["notes"]),
                    breaks("allow: [] wrongly hiding the scope's own tool", [])),
            *judged("view", _scope({"deny": []}), obeys("deny: [] hides nothing", ["a", "b", "c"])),
        ),
    ),
    _tf(
        4,
        "locals-after-filter",
        "Tools registered in the scope itself join the view after the global filter has been "
        "applied, so no restriction can hide them.",
        "A restriction speaks about deployment-global tools; what the scope registers for "
        "itself (such as structured output) is part of its own composition.",
        judged("view", _scope({"allow": ["a"]}, local=["x"]),
               obeys("a local survives an allow list that does not name it", ["a", "x:local"]),
               breaks("the local filtered away", ["a"])),
    ),
    _tf(
        5,
        "local-shadows-global",
        "A tool registered in a scope under the name of a global tool takes that global's "
        "place in the scope: a single entry of that name, with the local schema and the local "
        "body. Other scopes keep the global, and a local may fill the name even where a "
        "restriction denied the global.",
        "Child-scoped tools may shadow an admitted global; a duplicate entry would leave the "
        "model and the runtime disagreeing about which body runs.",
        (
            *judged("view", _scope(local=["b"]),
                    obeys("one entry, the local one", ["a", "b:local", "c"]),
                    breaks("global and local both listed", ["a", "b", "b:local", "c"])),
            *judged("view", _scope({"deny": ["b"]}, local=["b"]),
                    obeys("a local where the global was denied", ["a", "b:local", "c"])),
        ),
    ),
    _tf(
        6,
        "reserved-run-code",
        "The run_code tool, offered when the scope's presentation mode is ptc or both, stands "
        "outside the filter: no allow or deny list hides or admits it, and no tool may be "
        "registered or shadowed under that name.",
        "run_code is how the model reaches the other tools in code-calling mode; it is a "
        "protocol contribution of the scope, not a deployment tool a filter could choose.",
        (
            *judged("view", _scope({"allow": ["a"]}, mode="ptc"),
                    obeys("allow: [a] in ptc mode still offers run_code",
                          ["a", "run_code:reserved"])),
            *judged("view", _scope(mode="native"),
                    breaks("run_code offered in native mode",
                           ["a", "b", "c", "run_code:reserved"])),
            *judged("restriction", _installing({"deny": ["run_code"]}),
                    obeys("a filter naming run_code is refused",
                          {"code": "INVALID_TOOL_FILTER", "offending": ["run_code"]})),
        ),
    ),
    _tf(
        7,
        "no-op-filter",
        "Installing a restriction that has neither an allow nor a deny list (an empty object, "
        "or both lists absent or null) fails with a clear error, and nothing is installed.",
        "A filter that cannot change anything usually means a configuration went wrong; "
        "failing loudly stops it from looking effective.",
        (
            *judged("restriction", _installing({}), obeys("{} is refused", _BAD)),
            *judged("restriction", _installing({"allow": None, "deny": None}),
                    obeys("both lists null is refused", _BAD),
                    breaks("accepting both lists null (DSH 0.1.x)", {"ok": True})),
            *judged("view", _scope({"allow": None, "deny": []}),
                    obeys("a null beside a real list counts as absent", ["a", "b", "c"],
                          "Decision: a list given as null counts as absent, so the restriction "
                          "is its other list alone."),
                    breaks("allow: null read as an empty allow list (DSH 0.1.x)", [])),
            *judged("restriction", _installing({"allow": ["a"], "dney": ["b"]}),
                    obeys("a misspelled key is refused, not silently dropped", _BAD,
                          "Decision: a key other than allow and deny is refused like a no-op "
                          "filter.")),
        ),
    ),
    _tf(
        8,
        "unknown-name",
        "Installing a restriction that names anything outside the global tools registered at "
        "that moment fails, and the error lists every such name, whether a misspelling, a name "
        "that exists only as a scope-local tool, or run_code. Nothing is installed.",
        "Checking names catches misspellings and keeps a filter from seeming to govern an "
        "entry it cannot affect; listing all of them lets the caller fix the filter at once.",
        (
            *judged("restriction", _installing({"allow": ["raed", "notes"]}, ["read", "write"]),
                    obeys("misspelling and scope-local name both listed",
                          {"code": "INVALID_TOOL_FILTER", "offending": ["raed", "notes"]}),
                    breaks("only the first offender reported",
                           {"code": "INVALID_TOOL_FILTER", "offending": ["raed"]})),
            *judged("restriction", _installing({"deny": ["write"]}, ["read", "write"]),
                    obeys("known names are accepted", {"ok": True})),
        ),
    ),
)
