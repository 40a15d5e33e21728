"""Checks of delegation depth (DE-01..DE-10), per provider, at every entry the driver has.

Entries: ``StartRequest.maxDepth`` (the cap), ``create_agent(header_depth=...)`` (a durable
header), ``create_agent(runtime_depth=..., has_runtime_depth=True)`` (the runtime depth),
``put_session_header`` + ``resume`` (a stored header deep in the tree), and children reached
again as parents. Every expectation comes from :func:`~subagent_tck.spec.decide_start` (which
applies :func:`~subagent_tck.spec.decide_start_depth`); a refusal must leave sessions, agents,
events, invocations and model requests unchanged.

Attribution keeps one broken step to one failing rule: a refusal with ``DEPTH_EXCEEDED`` of a
start that gave no ``maxDepth`` is DE-10's failure (an omitted cap is unbounded) wherever it is
seen, and traces left by a ``DEPTH_EXCEEDED`` refusal are DE-04's. A header depth is only
restored by ``resume`` in DE-09's check and in DE-06's refusals; elsewhere a child is reached
as a parent while it is still published (else by ``resume``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    ABSENT,
    MAX_SAFE_INTEGER,
    Capability,
    DepthProblem,
    Edition,
    ErrorCode,
    StartOutcome,
    TckError,
    check_depth,
    read_json_number,
)

from ...core.protocol import AgentRef, RunResult, SessionHeader
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._observed import expect_unchanged, snapshot
from ._starts import (
    expected_start,
    header_depth,
    header_of,
    provider_name,
    start_request,
    start_state,
)

MAX = MAX_SAFE_INTEGER

#: docs/rules.md DE "Decision (domain)", as values a caller passes: JSON texts read as JavaScript
#: reads them (``spec.read_json_number``) and Python values.
TABLE: tuple[tuple[str, object], ...] = (
    ("JSON -0", read_json_number("-0")),
    ("JSON -0.0", read_json_number("-0.0")),
    ("JSON 1.0", read_json_number("1.0")),
    ("JSON 1e2", read_json_number("1e2")),
    ("2^53-1", MAX),
    ("2^53", 2**53),
    ("JSON 9007199254740993", read_json_number("9007199254740993")),
    ("NaN", float("nan")),
    ("Infinity", float("inf")),
    ("-Infinity", float("-inf")),
    ("-1", -1),
    ("0.5", 0.5),
    ("True", True),
    ('"1"', "1"),
    ("None", None),
    ("[]", []),
    ("{}", {}),
)

#: The class of each value of :data:`TABLE` (docs/rules.md DE "Decision (domain)"); the
#: oracle says which are outside the domain (:data:`OUT_OF_DOMAIN`).
CLASS_OF = {
    "JSON -0": "negative-zero", "JSON -0.0": "negative-zero", "JSON 1.0": "integral-float",
    "JSON 1e2": "integral-float", "2^53-1": "max-safe", "2^53": "unsafe-integer",
    "JSON 9007199254740993": "unsafe-integer", "NaN": "non-finite", "Infinity": "non-finite",
    "-Infinity": "non-finite", "-1": "negative", "0.5": "fractional", "True": "boolean",
    '"1"': "string", "None": "null", "[]": "list", "{}": "object",
}
CLASSES = tuple(dict.fromkeys(CLASS_OF.values()))
OUT_OF_DOMAIN = tuple(dict.fromkeys(CLASS_OF[n] for n, v in TABLE if not check_depth(v).ok))
_WORDS = {"negative-zero": "-0 (JSON -0, -0.0)", "integral-float": "an integral float (1.0, "
          "1e2)", "max-safe": "2^53-1", "unsafe-integer": "an integer past 2^53-1",
          "non-finite": "NaN or an infinity", "negative": "a negative integer",
          "fractional": "a fraction", "boolean": "a boolean", "string": "a numeric string",
          "null": "null", "list": "a list", "object": "an object"}


def value_partitions(rule: str, where: str = "", classes: tuple[str, ...] = CLASSES,
                     words: str = "") -> tuple[Partition, ...]:
    """One partition of ``rule`` per value class of :data:`TABLE` (prefixed ``where``)."""
    return tuple(Partition(rule, f"{where}{c}", f"{_WORDS[c]}{words}") for c in classes)


_INTEGERS = st.one_of(st.integers(0, 8), st.integers(MAX - 2, MAX + 2))


@st.composite
def spelling_st(draw: Any) -> object:
    """A JSON text for a number, in one of the spellings JSON allows (``3``, ``3.0``,
    ``3.000``, ``3e0``, ``3E+0``, ``30e-1``, ``0.3e1``, a sign, a fraction, an exponent that
    overflows), read as JavaScript reads it: the domain decides on the value, not the text."""
    n = draw(_INTEGERS)
    sign = draw(st.sampled_from(("", "", "-")))
    text = draw(st.sampled_from((
        f"{n}", f"{n}.0", f"{n}.000", f"{n}e0", f"{n}E+0", f"{n * 10}e-1", f"{n}.5",
        f"0.{n}e{len(str(n))}", f"{n}e400", f"{n}E-1",
    )))
    return read_json_number(sign + text)


#: Any value a caller might pass as a depth.
anything_st = st.one_of(
    spelling_st(),
    st.integers(min_value=-3, max_value=8),
    st.integers(min_value=MAX - 2, max_value=MAX + 2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
    st.lists(st.integers(0, 3), max_size=1),
    st.dictionaries(st.sampled_from("ab"), st.integers(0, 3), max_size=1),
)
small_st = st.integers(min_value=0, max_value=6)
#: Chain lengths: none, one, around the explicit cases, and deeper than any of them.
length_st = st.one_of(st.sampled_from((0, 1, 2, 5, 6)), st.integers(0, 12))


@st.composite
def chain_cap_st(draw: Any) -> tuple[int, int]:
    """A chain length and a cap for a start from its deepest child: the cap one below, at and
    one above the new child's depth, or far above it (limit-1, limit, limit+1, big)."""
    length = draw(length_st)
    child = length + 1
    limit = draw(st.sampled_from((child - 1, child, child + 1, child + 1000)))
    return length, max(limit, 0)


def label(value: object) -> str:
    return next((name for name, v in TABLE if v is value), repr(value))


def codes(outcome: StartOutcome, *values: object) -> set[ErrorCode]:
    """The codes a refusal may carry: the oracle's, plus INVALID_REQUEST for a non-finite
    number (over a JSON wire ``NaN``/``Infinity`` make the request itself malformed)."""
    out = set(outcome.codes)
    if any(check_depth(v).problem is DepthProblem.NOT_FINITE for v in values):
        out.add(ErrorCode.INVALID_REQUEST)
    return out


def oracle(
    ctx: CheckContext, header: object = 0, runtime: object = ABSENT,
    fields: dict[str, Any] | None = None,
) -> StartOutcome:
    """The oracle's answer for a start through the provider under test from a parent with
    ``header``/``runtime`` asking for ``fields``."""
    name = ctx.provider.name if ctx.provider else "-"
    state = start_state(ctx, parent_header=header, parent_runtime=runtime)
    return expected_start(state, start_request("-", name, "depth child", fields))


def has_cap(ctx: CheckContext) -> bool:
    return ctx.provider is not None and Capability.DEPTH_LIMIT in ctx.provider.capabilities


def cited(ctx: CheckContext, rule: str, fallback: str) -> str:
    """``rule`` when this check cites it, else ``fallback`` (attribution, see the module doc)."""
    return rule if rule in ctx.check.rules else fallback


#: The rules whose statements are about the depth a started child gets: DE-01 (one deeper than
#: its parent), DE-02 (the parent's effective depth), DE-06/DE-07 (an in-domain stored or
#: runtime value read as the number it is, docs/rules.md "Decision (domain)") and DE-09 (the
#: restored header). DE-03, DE-04, DE-05, DE-08 and DE-10 decide only whether a start is
#: accepted, so their checks do not judge the depth the child reports (DE-01's check does).
DEPTH_RULES = frozenset({"DE-01", "DE-02", "DE-06", "DE-07", "DE-09"})

#: Why a refusal's code matters (docs/driver-api.md, "Codes are the adapter's translation").
WHY_CODE = ("the driver API tells a refusal for the depth from any other refusal by its code, "
            "the adapter's translation of the runtime's error")


def attempt(
    ctx: CheckContext,
    rule: str,
    dep: Deployment,
    parent: str,
    outcome: StartOutcome,
    what: str,
    fields: dict[str, Any] | None = None,
    values: tuple[object, ...] = (),
    cap_rule: str | None = None,
) -> RunResult | None:
    """Start a child of ``parent`` through the provider under test and judge it by ``outcome``.

    ``rule`` decides the code of a refusal, an unexpected acceptance and the child's depth;
    a decision that differs from the oracle's only on the cap (DEPTH_EXCEEDED against a valid
    cap) is ``cap_rule``'s (default DE-03 when cited); an unexpected DEPTH_EXCEEDED without a
    cap is DE-10's; traces of a DEPTH_EXCEEDED refusal are DE-04's; the session header is
    DE-01's (each when cited, else ``rule``'s). The child's depth is judged only for
    :data:`DEPTH_RULES`."""
    assert ctx.provider is not None, "depth checks run per provider"
    request = start_request(parent, ctx.provider.name, "depth child", fields)
    capped = "maxDepth" in request.controls()
    cap_rule = cap_rule or cited(ctx, "DE-03", rule)
    allowed = codes(outcome, *values)
    before = snapshot(dep, ctx.gateway)
    try:
        result = dep.start(request)
    except TckError as exc:
        if outcome.ok:
            blame = rule
            if exc.code is ErrorCode.DEPTH_EXCEEDED:
                blame = cap_rule if capped else cited(ctx, "DE-10", rule)
            ctx.fail(blame, f"{what}: refused with {exc.code.value}, expected a child at depth "
                     f"{outcome.child_depth}", {"childDepth": outcome.child_depth}, exc.to_json())
            return None
        ctx.expect(rule, exc.code in allowed,
                   f"{what}: refused with {exc.code.value} ({WHY_CODE})",
                   sorted(c.value for c in allowed), exc.to_json())
        residue = rule
        if exc.code is ErrorCode.DEPTH_EXCEEDED:
            residue = cited(ctx, "DE-04", rule)
        expect_unchanged(ctx, residue, before, dep, f"{what} (refused)")
        return None
    if not outcome.ok:
        blame = cap_rule if outcome.codes == {ErrorCode.DEPTH_EXCEEDED} else rule
        ctx.fail(blame, f"{what}: accepted at depth {result.depth}, expected a refusal with "
                 + " or ".join(sorted(c.value for c in allowed)),
                 sorted(c.value for c in allowed), result)
        return result
    if not capped and "DE-10" in ctx.check.rules:
        ctx.expect("DE-10", True, "a start without maxDepth was not capped")
    if rule in DEPTH_RULES:
        ctx.expect(rule, result.depth == outcome.child_depth, f"{what}: the child's depth",
                   outcome.child_depth, result.depth)
    else:
        ctx.expect(rule, True, f"{what}: accepted")
    if "DE-01" in ctx.check.rules:
        stored = header_depth(header_of(dep, result.session))
        ctx.expect("DE-01", stored == outcome.child_depth, f"{what}: the child's session header "
                   "records its depth as delegationDepth", outcome.child_depth, stored)
    return result


def overflows(header: object, runtime: object) -> bool:
    """Whether a parent with these (valid) depths is at 2^53-1: its child would overflow."""
    depths = [check_depth(v) for v in (header, runtime) if v is not ABSENT]
    return all(d.ok for d in depths) and max(d.value or 0 for d in depths) == MAX


def from_parent(
    ctx: CheckContext, rule: str, header: object = 0, runtime: object = ABSENT,
    cap: object = ABSENT, what: str = "",
) -> None:
    """A fresh deployment, a top-level parent with ``header``/``runtime``, one start capped
    by ``cap``: judged against the oracle. A parent refused at creation is judged too (a bad
    stored or runtime depth may be refused there, DE-06/DE-07)."""
    dep = ctx.deploy()
    fields = {} if cap is ABSENT else {"maxDepth": cap}
    outcome = oracle(ctx, header, runtime, fields)
    values = (header, runtime, cap)
    what = what or (f"a start from a parent at header {label(header)}"
                    + ("" if runtime is ABSENT else f", runtime {label(runtime)}")
                    + ("" if cap is ABSENT else f", maxDepth {label(cap)}"))
    if overflows(header, runtime):
        rule = cited(ctx, "DE-08", rule)
    before = snapshot(dep, ctx.gateway)
    try:
        parent = dep.create_agent(header_depth=header, runtime_depth=None if runtime is ABSENT
                                  else runtime, has_runtime_depth=runtime is not ABSENT)
    except TckError as exc:
        alone = oracle(ctx, header, runtime)  # creation knows the parent's depths, not the cap
        allowed = codes(alone, header, runtime) - {ErrorCode.DEPTH_EXCEEDED}
        ctx.expect(rule, not alone.ok and exc.code in allowed,
                   f"{what}: the parent was refused at creation with {exc.code.value} "
                   f"({WHY_CODE})",
                   sorted(c.value for c in allowed) or "a parent", exc.to_json())
        expect_unchanged(ctx, rule, before, dep, f"{what} (parent refused)")
        return
    attempt(ctx, rule, dep, parent.agent, outcome, what, fields, values)


def reach(dep: Deployment, result: RunResult) -> AgentRef:
    """A started child as a parent: still published, else resumed."""
    if result.agent in dep.agents():
        return AgentRef(agent=result.agent, session=result.session, depth=result.depth)
    return dep.resume(result.session)


def chain(ctx: CheckContext, rule: str, dep: Deployment, length: int) -> list[RunResult]:
    """Children started one under the other from the root, without caps."""
    out: list[RunResult] = []
    parent = dep.root()
    for depth in range(length):
        result = attempt(ctx, rule, dep, parent.agent, oracle(ctx, depth),
                         f"a child at depth {depth + 1}")
        if result is None:
            ctx.abort()
        assert result is not None
        out.append(result)
        with ctx.step(rule, f"reaching the child at depth {depth + 1} as a parent"):
            parent = reach(dep, result)
    return out


def _chain_alone(ctx: CheckContext, rule: str, length: int) -> None:
    """A chain of ``length`` uncapped children in a fresh deployment (judged by ``rule``)."""
    chain(ctx, rule, ctx.deploy(), length)


DE01 = (
    Partition("DE-01", "top-level-agent", "the root at depth 0, its header too"),
    Partition("DE-01", "chain-of-three", "children started one under the other, each reached "
              "as a parent"),
)


@check("DE-01", "DE-10", name="depth-derivation", partitions=DE01)
def derivation(ctx: CheckContext) -> None:
    """A top-level agent is at depth 0; a child one deeper than its parent, recorded in its
    session header."""
    dep = ctx.deploy()
    root = dep.root()
    stored = header_of(dep, root.session)
    ctx.expect("DE-01", root.depth == 0 and (stored is None or header_depth(stored) == 0),
               "the top-level agent's depth", 0,
               {"agent": root.depth, "header": None if stored is None else stored.delegationDepth})
    ctx.drew("DE-01", "top-level-agent")
    chain(ctx, "DE-01", dep, 3)
    ctx.drew("DE-01", "chain-of-three")
    ctx.for_all(st.one_of(small_st, st.integers(MAX - 3, MAX - 1)),
                lambda h: from_parent(ctx, "DE-01", header=h))
    if not any(f.rule == "DE-01" for f in ctx.failures):
        ctx.for_all(length_st, lambda n: _chain_alone(ctx, "DE-01", n))


DE02 = (
    Partition("DE-02", "runtime-deeper", "a runtime depth above the header depth"),
    Partition("DE-02", "header-deeper", "a header depth above the runtime depth"),
    Partition("DE-02", "equal", "header and runtime depths equal"),
)


@check("DE-02", "DE-10", name="depth-effective-parent", partitions=DE02)
def effective_parent(ctx: CheckContext) -> None:
    """The parent's effective depth is the larger of its header and runtime depths."""
    for header, runtime in ((0, 3), (3, 0), (2, 2), (1, 4), (5, 1)):
        from_parent(ctx, "DE-02", header=header, runtime=runtime)
        ctx.drew("DE-02", "runtime-deeper" if runtime > header
                 else "header-deeper" if header > runtime else "equal")
    ctx.for_all(st.tuples(small_st, small_st),
                lambda t: from_parent(ctx, "DE-02", header=t[0], runtime=t[1]))


DE03 = (
    Partition("DE-03", "child-at-the-cap", "a child whose depth equals maxDepth: accepted"),
    Partition("DE-03", "child-past-the-cap", "a child one or more past maxDepth: refused"),
    Partition("DE-03", "cap-zero", "maxDepth 0: no child at all"),
    Partition("DE-03", "from-a-reached-child", "a grandchild under caps below, at and above "
              "its depth, from a child reached as a parent"),
    Partition("DE-04", "refused-leaves-nothing", "a refusal for the cap leaves nothing behind"),
)


@check("DE-03", "DE-04", name="depth-cap", partitions=DE03)
def cap(ctx: CheckContext) -> None:
    """A start is refused iff the child's depth is greater than maxDepth (DE-03), and such a
    refusal leaves nothing behind and comes before any setup of the child (DE-04)."""
    if not has_cap(ctx):
        for rule in ("DE-03", "DE-04"):
            ctx.skip(rule, "the provider does not advertise depthLimit (CA-01 judges refusal)")
        return
    for header, limit in ((0, 0), (0, 1), (1, 1), (1, 2), (4, 3), (3, 4)):
        from_parent(ctx, "DE-03", header=header, cap=limit)
        ctx.drew("DE-03", "cap-zero" if limit == 0 else "child-at-the-cap"
                 if header + 1 == limit else "child-past-the-cap")
    ctx.drew("DE-04", "refused-leaves-nothing")
    dep = ctx.deploy()
    child = chain(ctx, "DE-03", dep, 1)[0]
    with ctx.step("DE-03", "reaching the child as a parent"):
        parent = reach(dep, child)
    for limit in (1, 0, 2):
        fields = {"maxDepth": limit}
        attempt(ctx, "DE-03", dep, parent.agent, oracle(ctx, 1, ABSENT, fields),
                f"a grandchild under maxDepth {limit}", fields)
    ctx.drew("DE-03", "from-a-reached-child")
    ctx.for_all(st.tuples(small_st, small_st),
                lambda t: from_parent(ctx, "DE-03", header=t[0], cap=t[1]))
    if not any(f.rule == "DE-03" for f in ctx.failures):
        ctx.for_all(chain_cap_st(), lambda t: capped_under_chain(ctx, *t))
    for name, fields in setup_faults(ctx):
        dep = ctx.deploy()
        capped = {**fields, "maxDepth": 0}
        attempt(ctx, "DE-04", dep, dep.root().agent, oracle(ctx, 0, ABSENT, capped),
                f"a start past the cap whose {name} cannot be set up", capped)


def setup_faults(ctx: CheckContext) -> list[tuple[str, dict[str, Any]]]:
    """Controls the provider advertises, each with a value its child's setup would refuse
    (docs/rules.md#fr-03): a start past the cap that carries one is refused for its depth, a
    rejection that comes before the child is owned (docs/rules.md#de-04)."""
    caps = ctx.provider.capabilities if ctx.provider else []
    out: list[tuple[str, dict[str, Any]]] = []
    if Capability.OUTPUT_SCHEMA in caps:
        out.append(("output schema", {"outputSchema": {"type": "string"}}))
    if ctx.edition is Edition.REQUEST_CONTROLS:  # request controls only in this edition
        if Capability.PERSONA in caps:
            out.append(("persona", {"persona": "You work on {{nobody_defined_this}}."}))
        if Capability.TOOL_FILTER in caps:
            out.append(("tool filter", {"toolFilter": {"allow": ["no_such_tool"]}}))
    return out


def capped_under_chain(ctx: CheckContext, length: int, limit: int) -> None:
    """A chain of ``length`` children reached as parents, then a start from its deepest agent
    under ``maxDepth`` ``limit`` (DE-03: refused iff the new child would be deeper)."""
    dep = ctx.deploy()
    parent = dep.root()
    for depth in range(1, length + 1):
        # The chain itself is DE-01's and DE-10's to judge: a link that fails here ends the
        # case without a verdict on the cap.
        try:
            result = dep.start(start_request(parent.agent, provider_name(ctx), "depth child"))
            parent = reach(dep, result)
        except TckError:
            return
        if result.depth != depth or parent.depth != depth:
            return
    fields = {"maxDepth": limit}
    attempt(ctx, "DE-03", dep, parent.agent, oracle(ctx, length, ABSENT, fields),
            f"a start under maxDepth {limit} from the end of a chain of {length}", fields)


DE05 = (
    *value_partitions("DE-05", "cap-", words=" as maxDepth"),
    Partition("DE-05", "cap-zero", "maxDepth 0: in the domain, the child refused (DE-04)"),
    Partition("DE-05", "largest-cap", "maxDepth 2^53-1 from a parent at 2^53-2"),
)


@check("DE-05", "DE-04", "DE-03", "DE-08", name="depth-cap-domain", partitions=DE05)
def cap_domain(ctx: CheckContext) -> None:
    """maxDepth outside the domain is refused with nothing created; inside it, values are read
    as the numbers they are (1.0 is 1, 1e2 is 100)."""
    if not has_cap(ctx):
        for rule in ("DE-05", "DE-04", "DE-03", "DE-08"):
            ctx.skip(rule, "the provider does not advertise depthLimit (CA-01, CA-03 judge "
                     "maxDepth sent to it)")
        return
    for name, value in TABLE:
        from_parent(ctx, "DE-05", cap=value)
        ctx.drew("DE-05", f"cap-{CLASS_OF[name]}")
    from_parent(ctx, "DE-05", cap=0)  # in the domain, and a refusal DE-04 judges
    ctx.drew("DE-05", "cap-zero")
    from_parent(ctx, "DE-05", header=MAX - 1, cap=MAX)
    ctx.drew("DE-05", "largest-cap")
    ctx.for_all(anything_st, lambda v: from_parent(ctx, "DE-05", cap=v))


def replanted(ctx: CheckContext, value: object, root: bool) -> None:
    """A live parent that already started a child has its own stored header rewritten to
    ``value`` under it (no resume): its next start reads the header again (docs/rules.md#DE-06:
    "a parent's header") and, ``value`` outside the domain, is refused with nothing created. The
    parent is the root, or a child reached as a parent. A target that cannot write a live
    session's header (UNSUPPORTED_OPERATION) has no such place."""
    where = "root" if root else "live-parent"
    dep = ctx.deploy()
    parent = dep.root() if root else reach(dep, chain(ctx, "DE-06", dep, 1)[0])
    first = attempt(ctx, "DE-06", dep, parent.agent, oracle(ctx, parent.depth),
                    f"a first start from the {'root' if root else 'child'}")
    stored = header_of(dep, parent.session)
    if first is None or stored is None:
        if stored is None:  # a root with no stored header keeps its depth nowhere to rewrite
            ctx.inapplicable("DE-06", *(f"{where}-{c}" for c in OUT_OF_DOMAIN))
        return
    header = stored.model_copy(update={"delegationDepth": value})
    try:
        dep.put_session_header(header)
    except Unsupported:
        ctx.inapplicable("DE-06", *(f"{where}-{c}" for c in OUT_OF_DOMAIN))
        return
    if parent.agent not in dep.agents():
        # the target let the live agent go when its header was written (as a restart would):
        # it keeps no live parent under a rewritten header, and resume is the place judged
        ctx.inapplicable("DE-06", *(f"{where}-{c}" for c in OUT_OF_DOMAIN))
        return
    what = (f"a second start from the live {'root' if root else 'child'} whose stored header "
            f"was rewritten to {label(value)} after its first start")
    attempt(ctx, "DE-06", dep, parent.agent, oracle(ctx, value), what, {}, (value,))


def planted(ctx: CheckContext, value: object) -> None:
    """A stored header deep in the tree rewritten to ``value``: the resume is refused, or the
    start from the resumed agent is."""
    dep = ctx.deploy()
    grandchild = chain(ctx, "DE-06", dep, 2)[1]
    stored = header_of(dep, grandchild.session)
    if stored is None:
        ctx.fail("DE-06", "a started child has no session header", "a header", None)
        return
    header = SessionHeader(session=stored.session, parent=stored.parent, delegationDepth=value,
                           descriptor=stored.descriptor)
    with ctx.step("DE-06", f"writing the stored header {label(value)}"):
        dep.put_session_header(header)
    what = f"a stored delegationDepth {label(value)} two levels deep"
    outcome = oracle(ctx, value)
    before = snapshot(dep, ctx.gateway)
    try:
        parent = dep.resume(stored.session)
    except TckError:
        # "the session does not load": DE-06 names no error code for it (docs/rules.md#DE-06).
        expect_unchanged(ctx, "DE-06", before, dep, f"{what} (resume refused)")
        return
    attempt(ctx, "DE-06", dep, parent.agent, outcome, f"{what}, resumed", {}, (value,))


DE06 = (
    *value_partitions("DE-06", "created-", words=" as a top-level agent's stored header, read "
                      "by a start from it"),
    *value_partitions("DE-06", "resumed-", OUT_OF_DOMAIN, " as the stored header of a session "
                      "two levels deep, read by its resume (or the start from it)"),
    *value_partitions("DE-06", "live-parent-", OUT_OF_DOMAIN, " written over the header of a "
                      "live child after its first start, read by its next start"),
    *value_partitions("DE-06", "root-", OUT_OF_DOMAIN, " written over the root's header after "
                      "its first start, read by its next start"),
)


@check("DE-06", "DE-10", "DE-08", name="depth-stored-domain", partitions=DE06)
def stored_domain(ctx: CheckContext) -> None:
    """A stored delegationDepth outside the domain, wherever a depth is stored (a top-level
    agent's header, a session being resumed, a live parent's header rewritten under it), is
    refused (the session does not load, or the start from it fails) with nothing created;
    stored values inside it are read as the numbers they are."""
    for name, value in TABLE:
        kind = CLASS_OF[name]
        from_parent(ctx, "DE-06", header=value)
        ctx.drew("DE-06", f"created-{kind}")
        if not check_depth(value).ok:
            planted(ctx, value)
            ctx.drew("DE-06", f"resumed-{kind}")
    for where in ("live-parent", "root"):
        for name, value in TABLE:
            part = f"{where}-{CLASS_OF[name]}"
            if CLASS_OF[name] not in OUT_OF_DOMAIN:
                continue
            if ("DE-06", part) in ctx.inapplicable_partitions:
                break  # the target keeps no depth there it can rewrite
            replanted(ctx, value, root=where == "root")
            if ("DE-06", part) not in ctx.inapplicable_partitions:
                ctx.drew("DE-06", part)
    ctx.for_all(anything_st, lambda v: from_parent(ctx, "DE-06", header=v))


DE07 = value_partitions("DE-07", words=" as the parent's runtime subagentDepth")


@check("DE-07", "DE-10", "DE-08", name="depth-runtime-domain", partitions=DE07)
def runtime_domain(ctx: CheckContext) -> None:
    """A runtime subagentDepth outside the domain makes a start from that agent fail with
    nothing created; runtime values inside it are read as the numbers they are."""
    for name, value in TABLE:
        from_parent(ctx, "DE-07", runtime=value)
        ctx.drew("DE-07", CLASS_OF[name])
    ctx.for_all(anything_st, lambda v: from_parent(ctx, "DE-07", runtime=v))


DE08 = (
    Partition("DE-08", "header-at-max", "a parent whose header is 2^53-1"),
    Partition("DE-08", "runtime-at-max", "a parent whose runtime depth is 2^53-1"),
    Partition("DE-08", "one-below-max", "a parent at 2^53-2 (header, or runtime over a lower "
              "header): its child at 2^53-1"),
    Partition("DE-08", "largest-cap", "each of these under maxDepth 2^53-1"),
)


@check("DE-08", "DE-10", "DE-03", name="depth-derived-overflow", partitions=DE08)
def derived_overflow(ctx: CheckContext) -> None:
    """A parent at 2^53-1 (header or runtime) cannot start a child, with or without a cap; a
    parent at 2^53-2 starts one at 2^53-1."""
    caps: list[object] = [ABSENT, MAX] if has_cap(ctx) else [ABSENT]
    if not has_cap(ctx):
        ctx.inapplicable("DE-08", "largest-cap")
    for limit in caps:
        from_parent(ctx, "DE-08", header=MAX, cap=limit)
        ctx.drew("DE-08", "header-at-max")
        from_parent(ctx, "DE-08", header=0, runtime=MAX, cap=limit)
        ctx.drew("DE-08", "runtime-at-max")
        from_parent(ctx, "DE-08", header=MAX - 1, cap=limit)
        from_parent(ctx, "DE-08", header=MAX - 5, runtime=MAX - 1, cap=limit)
        ctx.drew("DE-08", "one-below-max")
    if len(caps) > 1:
        ctx.drew("DE-08", "largest-cap")


DE09 = (
    Partition("DE-09", "resumed-at-depth-1", "a child at depth 1 resumed, then starts under "
              "maxDepth 1 and 2"),
    Partition("DE-09", "resumed-at-depth-2", "its child at depth 2 resumed, then starts under "
              "maxDepth 2 and 3"),
)


@check("DE-09", "DE-04", "DE-03", name="depth-durable-resume", partitions=DE09)
def durable_resume(ctx: CheckContext) -> None:
    """Resume restores the header depth: a resumed child at depth 1 under maxDepth 1 cannot
    start a child, and its children are one deeper."""
    if not has_cap(ctx):
        for rule in ("DE-09", "DE-04", "DE-03"):
            ctx.skip(rule, "the provider does not advertise depthLimit (no cap to hold)")
        return
    dep = ctx.deploy()
    current = dep.root().agent
    for depth in (1, 2):
        result = attempt(ctx, "DE-09", dep, current, oracle(ctx, depth - 1),
                         f"a child at depth {depth}")
        if result is None:
            return
        with ctx.step("DE-09", f"resuming the child at depth {depth}"):
            resumed = dep.resume(result.session)
        stored = header_depth(header_of(dep, result.session))
        restored = ctx.expect("DE-09", resumed.depth == depth == stored, f"the resumed child "
                              f"at depth {depth}", depth, {"agent": resumed.depth,
                                                          "header": stored})
        for limit in (depth, depth + 1):
            fields = {"maxDepth": limit}
            attempt(ctx, "DE-09", dep, resumed.agent, oracle(ctx, depth, ABSENT, fields),
                    f"a start from the resumed child at depth {depth} under maxDepth {limit}",
                    fields, cap_rule="DE-03" if restored else "DE-09")
        ctx.drew("DE-09", f"resumed-at-depth-{depth}")
        current = resumed.agent


DE10 = (
    Partition("DE-10", "deep-parents", "parents at headers 0 to 2^53-2, no maxDepth"),
    Partition("DE-10", "chain-of-five", "five children under one another, no maxDepth"),
)


@check("DE-10", name="depth-omitted-cap", partitions=DE10)
def omitted_cap(ctx: CheckContext) -> None:
    """A start without maxDepth is unbounded (the domain checks that still apply are judged by
    DE-06, DE-07 and DE-08, whose starts give no cap either)."""
    for header in (0, 1, 2, 3, 7, 40, 1000, MAX - 2):
        from_parent(ctx, "DE-10", header=header)
    ctx.drew("DE-10", "deep-parents")
    chain(ctx, "DE-10", ctx.deploy(), 5)
    ctx.drew("DE-10", "chain-of-five")
    ctx.for_all(st.integers(0, MAX - 1), lambda h: from_parent(ctx, "DE-10", header=h))
    if not any(f.rule == "DE-10" for f in ctx.failures):
        ctx.for_all(length_st, lambda n: _chain_alone(ctx, "DE-10", n))
