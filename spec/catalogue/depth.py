"""DE: depth, rules DE-01..DE-10 of docs/rules.md.

DE-03, DE-04, DE-05 and DE-09 decide the ``depthLimit`` capability; the others (derivation and
the domain of stored and runtime depths) bind every target. DE-05 carries the whole depth
domain of docs/rules.md's "Decision (domain)" as raw JSON text (``depth-json``) and Python values.
"""

from __future__ import annotations

from typing import Any

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import MAX_SAFE_INTEGER, Capability, Edition, Family
from ._examples import breaks, judged, narrative, obeys, on_spawn

_TREE_CAP = Source(document="000_f18e7de65ba39cf4.txt", section="Depth is an absolute tree cap")
_REJECTED = {"rejected": True}
_INVALID = {"code": "INVALID_DEPTH"}
_EXCEEDED = {"code": "DEPTH_EXCEEDED"}
#: A start refused at the cap that also carries a value its child's setup would refuse (FR-03):
#: the depth rejection comes before the child is owned, setup after it.
_PAST_THE_CAP_MISCOMPOSED = on_spawn(Edition.PRESET_COMPOSITION,
                                     {"maxDepth": 0, "outputSchema": {"type": "string"}})


_de = family_rules(Family.DE, _TREE_CAP, stateful=True)


def _start(given: dict[str, Any], *seen: Example) -> tuple[Example, ...]:
    """Examples of the ``start-depth`` oracle: ``given`` the parent's header and runtime depths
    and the start's maxDepth."""
    return judged("start-depth", given, *seen)


def _json(text: str, observed: dict[str, Any], note: str = "", holds: bool = True) -> Example:
    verdict = f"accepted as {observed['accepted']}" if "accepted" in observed else "rejected"
    return Example(
        title=f"JSON {text} {verdict}",
        oracle="depth-json",
        given={"json": text},
        observed=observed,
        holds=holds,
        note=note,
    )


def _value(title: str, value: object, observed: dict[str, Any], holds: bool = True) -> Example:
    return Example(title=title, oracle="depth", given={"value": value}, observed=observed,
                   holds=holds)


#: docs/rules.md "Decision (domain)", row by row, as a JavaScript runtime reads the JSON text.
_DOMAIN: tuple[Example, ...] = (
    _json("0", {"accepted": 0}),
    _json("3", {"accepted": 3}),
    _json("1.0", {"accepted": 1}, "an integer-valued number, whatever its spelling"),
    _json("1e2", {"accepted": 100}),
    _json("9007199254740991", {"accepted": MAX_SAFE_INTEGER}, "2^53-1, the top of the domain"),
    _json("9007199254740992", _REJECTED, "2^53 is unsafe"),
    _json("9007199254740993", _REJECTED, "reads as 2^53 in a JavaScript runtime"),
    _json("-1", _REJECTED, "negative"),
    _json("0.5", _REJECTED, "a fraction"),
    _json("-0", _REJECTED, "negative zero"),
    _json("-0.0", _REJECTED, "negative zero"),
    _json("1e400", _REJECTED, "reads as Infinity"),
    _json("NaN", _REJECTED, "not JSON: the request is malformed"),
    _json("Infinity", _REJECTED, "not JSON: the request is malformed"),
    _json("-Infinity", _REJECTED, "not JSON: the request is malformed"),
    _json('"1"', _REJECTED, "a string"),
    _json("true", _REJECTED, "a boolean"),
    _json("null", _REJECTED, "null is a value outside the domain, not an omission"),
    _json("[]", _REJECTED, "an array"),
    _json("{}", _REJECTED, "an object"),
    _json("true", {"accepted": 1}, "a boolean read as 1", holds=False),
    _json("9007199254740993", {"accepted": 9007199254740993}, "precision beyond 2^53",
          holds=False),
    _json("-0", {"accepted": 0}, "negative zero taken for 0", holds=False),
    _value("Python True is not a number", True, _REJECTED),
    _value("Python float('nan') is rejected", float("nan"), _REJECTED),
    _value("Python -0.0 is rejected", -0.0, _REJECTED),
    _value("Python 2.0 is accepted as 2", 2.0, {"accepted": 2}),
    _value("Python 2**53 is rejected", 2**53, _REJECTED),
)


RULES: tuple[Rule, ...] = (
    _de(
        1,
        "derivation",
        "A top-level agent is at depth 0, and a child sits one deeper than its parent's "
        "effective depth. The child's session header records that depth as delegationDepth.",
        "Depth counts levels of delegation from the root; recording it durably is what lets a "
        "cap hold across restarts.",
        (
            *_start({"header": 0},
                    obeys("a top-level parent starts a child at depth 1", {"childDepth": 1})),
            *_start({"header": 2},
                    breaks("the child given its parent's depth", {"childDepth": 2})),
        ),
    ),
    _de(
        2,
        "effective-parent",
        "A parent's effective depth is the greater of its durable header depth and its runtime "
        "depth (subagentDepth). The runtime value can make the parent deeper but never "
        "shallower.",
        "Either record may be the more recent one; taking the larger means neither a stale "
        "header nor a forgotten runtime option can shrink the count.",
        (
            *_start({"header": 1, "runtime": 3},
                    obeys("runtime deeper than the header", {"childDepth": 4})),
            *_start({"header": 3, "runtime": 1},
                    obeys("runtime cannot lower the header", {"childDepth": 4}),
                    breaks("runtime used to lower the depth", {"childDepth": 2})),
        ),
    ),
    _de(
        3,
        "cap",
        "A start is refused exactly when the child's derived depth is greater than maxDepth. "
        "With maxDepth 0 no child may be started, while a child whose depth equals the cap is "
        "allowed.",
        "maxDepth is an absolute bound on how deep the delegation tree may grow, measured in "
        "the same units as the recorded depth.",
        (
            *_start({"header": 0, "maxDepth": 0},
                    obeys("maxDepth 0 forbids every child", _EXCEEDED)),
            *_start({"header": 0, "maxDepth": 1},
                    obeys("a child at the cap is allowed", {"childDepth": 1})),
            *_start({"header": 1, "maxDepth": 1},
                    obeys("one past the cap is refused", _EXCEEDED),
                    breaks("off by one: a child past the cap started", {"childDepth": 2})),
        ),
        capability=Capability.DEPTH_LIMIT,
    ),
    _de(
        4,
        "reject-before-ownership",
        "A start refused for depth leaves nothing behind: no child session or agent, no "
        "lifecycle event, no model request and no descriptor.",
        "The check happens before the child is owned by anyone, so a refusal has nothing to "
        "clean up and nothing an observer could catch half-made.",
        (
            *narrative({"maxDepth": 0},
                       obeys("refused at the cap", {"error": "DEPTH_EXCEEDED", "sessions": 0,
                                                    "events": [], "requests": 0}),
                       breaks("a started event before the refusal",
                              {"error": "DEPTH_EXCEEDED", "events": ["child-started"]})),
            *judged("start", _PAST_THE_CAP_MISCOMPOSED,
                    obeys("past the cap, with an output schema its setup would refuse", _EXCEEDED),
                    breaks("the setup fault reported: the child was set up before its depth was "
                           "known", {"code": "INVALID_OUTPUT_SCHEMA"})),
        ),
        capability=Capability.DEPTH_LIMIT,
        stateful=False,
    ),
    _de(
        5,
        "cap-domain",
        "A maxDepth value outside the depth domain is refused with a clear error at every "
        "public entry point, and nothing is created. The domain is the non-negative safe "
        "integers, with JSON numbers read the way JavaScript reads them.",
        "Every entry must validate on its own rather than trust one configuration path; "
        "a cap that is negative, fractional, non-finite or unsafe cannot be enforced honestly.",
        (
            *_DOMAIN,
            *_start({"header": 0, "maxDepth": -1}, obeys("maxDepth -1 at a start", _INVALID)),
            *_start({"header": 0, "maxDepth": None},
                    obeys("maxDepth null is not an omission", _INVALID)),
            *_start({"header": 0, "maxDepth": 1.5},
                    breaks("maxDepth 1.5 silently rounded", {"childDepth": 1})),
        ),
        capability=Capability.DEPTH_LIMIT,
    ),
    _de(
        6,
        "stored-domain",
        "A stored delegationDepth outside the domain, whether in a session being resumed or in "
        "a parent's header, is refused: the session does not load or the start from it fails, "
        "and nothing is created.",
        "A corrupt or hand-edited header must not reset or overflow the count; malformed "
        "stored parent depth rejects like any other bad value.",
        (
            *_start({"header": -1}, obeys("negative stored depth", _INVALID)),
            *_start({"header": 1.5}, obeys("fractional stored depth", _INVALID)),
            *_start({"header": "2"}, breaks("a malformed header read as 0", {"childDepth": 1})),
        ),
    ),
    _de(
        7,
        "runtime-domain",
        "If the runtime subagentDepth of an agent is outside the domain, any start from that "
        "agent fails and nothing is created.",
        "The runtime depth feeds the effective depth; a bad value there must fail as loudly as "
        "a bad header instead of being ignored.",
        (
            *_start({"header": 0, "runtime": "2"}, obeys("a string runtime depth", _INVALID)),
            *_start({"header": 0, "runtime": float("nan")}, obeys("NaN runtime depth", _INVALID)),
            *_start({"header": 0, "runtime": -3},
                    breaks("a bad runtime depth ignored", {"childDepth": 1})),
        ),
    ),
    _de(
        8,
        "derived-overflow",
        "A parent already at depth 2^53-1 cannot start a child, whether or not a cap is given, "
        "because the child's depth would no longer be a safe integer.",
        "Past 2^53-1 a JavaScript number can no longer count by one; an overflowed depth "
        "would compare wrongly with any cap.",
        (
            *_start({"header": MAX_SAFE_INTEGER}, obeys("no cap", _INVALID)),
            *_start({"header": MAX_SAFE_INTEGER, "maxDepth": MAX_SAFE_INTEGER},
                    obeys("largest cap", _INVALID)),
            *_start({"header": MAX_SAFE_INTEGER},
                    breaks("an unsafe child depth recorded",
                           {"childDepth": MAX_SAFE_INTEGER + 1})),
        ),
    ),
    _de(
        9,
        "durable-resume",
        "Resuming a session restores its header depth, so a restart can never lower the count: "
        "a resumed child at header depth 1 under maxDepth 1 still cannot start a child.",
        "If a restart forgot the depth, a loop of crash and resume would escape any cap.",
        (
            *narrative({"resumed header": 1, "maxDepth": 1},
                       obeys("resumed at depth 1 with maxDepth 1", {"error": "DEPTH_EXCEEDED"}),
                       breaks("resume treats the child as top-level", {"childDepth": 1})),
            *_start({"header": 1, "maxDepth": 1}, obeys("the restored header decides", _EXCEEDED)),
        ),
        capability=Capability.DEPTH_LIMIT,
        stateful=False,
    ),
    _de(
        10,
        "omitted-cap",
        "A direct start without maxDepth has no depth bound, yet the checks of the stored "
        "depth, the runtime depth and derived overflow still apply.",
        "Leaving the cap out is how a direct caller asks for unbounded delegation; it must not "
        "also switch off the domain checks.",
        (
            *_start({"header": 40}, obeys("no cap, deep parent", {"childDepth": 41})),
            *_start({"header": MAX_SAFE_INTEGER}, obeys("no cap, still no overflow", _INVALID)),
            *_start({"header": 40}, breaks("a default cap applied", _EXCEEDED)),
        ),
    ),
)
