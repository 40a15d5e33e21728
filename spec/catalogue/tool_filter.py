"""TF: the tool filter (capability ``toolFilter``), rules TF-01..TF-08 of docs/rules.md: what one
scope's filters let through, and which filters can be installed at all.

Stateful rules carry ``view`` or ``restriction`` examples that the oracle judges
(:mod:`subagent_tck.spec.judge`). The family's later rules, the filter over a live registry and
across scopes (TF-09..TF-16), are :mod:`.tool_filter_live`'s.
"""

from __future__ import annotations

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import Capability, Family

_SEED = "000_f18e7de65ba39cf4.txt"
_FILTERING = Source(document=_SEED, section="Tool filtering is one live global-view rule")
_ABC = ["a", "b", "c"]
_BAD = {"code": "INVALID_TOOL_FILTER"}


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
            Example(
                title="both lists: allow minus deny",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": ["a", "b"], "deny": ["b"]}]},
                observed=["a"],
                holds=True,
            ),
            Example(
                title="deny ignored when the name is allowed",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": ["a", "b"], "deny": ["b"]}]},
                observed=["a", "b"],
                holds=False,
            ),
            Example(
                title="deny only",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"deny": ["c"]}]},
                observed=["a", "b"],
                holds=True,
            ),
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
            Example(
                title="allow then deny",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": ["a", "b"]}, {"deny": ["b"]}]},
                observed=["a"],
                holds=True,
            ),
            Example(
                title="deny then allow: same view",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"deny": ["b"]}, {"allow": ["a", "b"]}]},
                observed=["a"],
                holds=True,
            ),
            Example(
                title="the last restriction alone decides",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": ["a", "b"]}, {"deny": ["b"]}]},
                observed=["a", "c"],
                holds=False,
            ),
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
            Example(
                title="allow: [] keeps locals and run_code",
                oracle="view",
                given={
                    "globals": _ABC,
                    "restrictions": [{"allow": []}],
                    "locals": ["notes"],
                    "mode": "both",
                },
                observed=["notes:local", "run_code:reserved"],
                holds=True,
            ),
            Example(
                title="allow: [] wrongly hiding the scope's own tool",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": []}], "locals": ["notes"]},
                observed=[],
                holds=False,
            ),
            Example(
                title="deny: [] hides nothing",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"deny": []}]},
                observed=["a", "b", "c"],
                holds=True,
            ),
        ),
    ),
    _tf(
        4,
        "locals-after-filter",
        "Tools registered in the scope itself join the view after the global filter has been "
        "applied, so no restriction can hide them.",
        "A restriction speaks about deployment-global tools; what the scope registers for "
        "itself (such as structured output) is part of its own composition.",
        (
            Example(
                title="a local survives an allow list that does not name it",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": ["a"]}], "locals": ["x"]},
                observed=["a", "x:local"],
                holds=True,
            ),
            Example(
                title="the local filtered away",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": ["a"]}], "locals": ["x"]},
                observed=["a"],
                holds=False,
            ),
        ),
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
            Example(
                title="one entry, the local one",
                oracle="view",
                given={"globals": _ABC, "locals": ["b"]},
                observed=["a", "b:local", "c"],
                holds=True,
            ),
            Example(
                title="global and local both listed",
                oracle="view",
                given={"globals": _ABC, "locals": ["b"]},
                observed=["a", "b", "b:local", "c"],
                holds=False,
            ),
            Example(
                title="a local where the global was denied",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"deny": ["b"]}], "locals": ["b"]},
                observed=["a", "b:local", "c"],
                holds=True,
            ),
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
            Example(
                title="allow: [a] in ptc mode still offers run_code",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": ["a"]}], "mode": "ptc"},
                observed=["a", "run_code:reserved"],
                holds=True,
            ),
            Example(
                title="run_code offered in native mode",
                oracle="view",
                given={"globals": _ABC, "mode": "native"},
                observed=["a", "b", "c", "run_code:reserved"],
                holds=False,
            ),
            Example(
                title="a filter naming run_code is refused",
                oracle="restriction",
                given={"globals": _ABC, "restriction": {"deny": ["run_code"]}},
                observed={"code": "INVALID_TOOL_FILTER", "offending": ["run_code"]},
                holds=True,
            ),
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
            Example(
                title="{} is refused",
                oracle="restriction",
                given={"globals": _ABC, "restriction": {}},
                observed=_BAD,
                holds=True,
            ),
            Example(
                title="both lists null is refused",
                oracle="restriction",
                given={"globals": _ABC, "restriction": {"allow": None, "deny": None}},
                observed=_BAD,
                holds=True,
            ),
            Example(
                title="accepting both lists null (DSH 0.1.x)",
                oracle="restriction",
                given={"globals": _ABC, "restriction": {"allow": None, "deny": None}},
                observed={"ok": True},
                holds=False,
            ),
            Example(
                title="a null beside a real list counts as absent",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": None, "deny": []}]},
                observed=["a", "b", "c"],
                holds=True,
                note="Decision: a list given as null counts as absent, so the restriction is "
                "its other list alone.",
            ),
            Example(
                title="allow: null read as an empty allow list (DSH 0.1.x)",
                oracle="view",
                given={"globals": _ABC, "restrictions": [{"allow": None, "deny": []}]},
                observed=[],
                holds=False,
            ),
            Example(
                title="a misspelled key is refused, not silently dropped",
                oracle="restriction",
                given={"globals": _ABC, "restriction": {"allow": ["a"], "dney": ["b"]}},
                observed=_BAD,
                holds=True,
                note="Decision: a key other than allow and deny is refused like a no-op filter.",
            ),
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
            Example(
                title="misspelling and scope-local name both listed",
                oracle="restriction",
                given={"globals": ["read", "write"], "restriction": {"allow": ["raed", "notes"]}},
                observed={"code": "INVALID_TOOL_FILTER", "offending": ["raed", "notes"]},
                holds=True,
            ),
            Example(
                title="only the first offender reported",
                oracle="restriction",
                given={"globals": ["read", "write"], "restriction": {"allow": ["raed", "notes"]}},
                observed={"code": "INVALID_TOOL_FILTER", "offending": ["raed"]},
                holds=False,
            ),
            Example(
                title="known names are accepted",
                oracle="restriction",
                given={"globals": ["read", "write"], "restriction": {"deny": ["write"]}},
                observed={"ok": True},
                holds=True,
            ),
        ),
    ),
)
