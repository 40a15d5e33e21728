"""Checks of a child's start (FR-01..FR-03), per provider and in the run's edition.

A child is composed with every control its provider advertises (persona, tool filter, output
schema; the others would be refused, which CA decides) and judged on what is observable: the
first model request the gateway recorded (FR-01), the ``agent.published`` event's snapshot and
the event order (FR-02), everything a failed start must leave unchanged (FR-02, FR-03).
Expectations come from the spec oracle (``decide_start``, ``resolve_sections``,
``resolve_view``, ``wire_tool_names``, ``assemble_system_prompt``). What comes after the first
request, a cold resume (FR-04) and later requests (FR-05), is :mod:`.first_request_later`'s.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import Capability, ErrorCode, PresentationMode, TckError

from ...core.protocol import snapshot_of
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, deploy_or_refusal, each_case, expected_sections, expected_view
from ._first_request_child import (
    Child,
    allow_filter,
    deny_filter,
    doomed,
    everything,
    model_requests,
)
from ._framed import composed_or_framed
from ._observed import as_pairs, expect_unchanged, snapshot
from ._starts import (
    OUTPUT_SCHEMA,
    composition,
    judge,
    oracle_accepts,
    provider_name,
    start_request,
    supported_controls,
)
from ._texts import EXAMPLE, Vocabulary, strangers, vocabularies

#: Codes a target may give when it refuses a broken preset as soon as it is configured.
CONFIGURATION_CODES = frozenset({
    ErrorCode.INVALID_TOOL_FILTER,
    ErrorCode.INVALID_TEMPLATE,
    ErrorCode.INVALID_OUTPUT_SCHEMA,
    ErrorCode.SETUP_FAILED,
    ErrorCode.INVALID_CONFIG,
})
NO_SETUP_CONTROL = (
    "the provider advertises none of persona, toolFilter, outputSchema: no setup step can be "
    "asked of it (CA-01 decides that it refuses them)"
)


FR01 = tuple(Partition("FR-01", f"{m.value}-mode", f"a child composed with every control its "
                       f"provider advertises, in {m.value} mode") for m in PresentationMode)


@check("FR-01", name="first-request-complete", partitions=FR01)
def first_request_complete(ctx: CheckContext) -> None:
    """The child's first request already carries persona, filtered tool schemas,
    ``structured_output`` for an output schema and ``run_code`` where the mode offers it."""
    each_case(ctx, ["FR-01"], lambda texts: _first_request_complete(ctx, texts))


def _first_request_complete(ctx: CheckContext, texts: Vocabulary) -> None:
    controls = supported_controls(ctx.provider, everything(texts))
    for mode in PresentationMode:
        child = Child(ctx, "FR-01", texts, controls, mode=mode)
        requests = model_requests(ctx, child.agent, "FR-01")
        if not requests:
            continue
        child.expect_carried(
            ctx, "FR-01", requests[0], child.agent,
            f"mode {mode.value}: the first request's system text carries the composed persona "
            "and sections (as prompt inspection reports them)",
            f"mode {mode.value}: the first request carries exactly the child's tool schemas")
        ctx.drew("FR-01", f"{mode.value}-mode")


def _failing_controls(
    ctx: CheckContext, texts: Vocabulary
) -> list[tuple[str, dict[str, Any]]]:
    """Setup failures the provider under test can be asked for (FR-02, FR-03)."""
    caps = ctx.provider.capabilities if ctx.provider else []
    cases: list[tuple[str, dict[str, Any]]] = []
    if Capability.TOOL_FILTER in caps:
        # ``doomed`` is registered when the deployment is made and unregistered before the start.
        cases.append(("a filter naming an unknown tool", {"toolFilter": allow_filter(texts)}))
    if Capability.PERSONA in caps:
        ghost = strangers(list(texts.variables))[0]
        cases.append(("a bad persona template",
                      {"persona": f"{texts.child_persona} {{{{{ghost}}}}}"}))
    if Capability.OUTPUT_SCHEMA in caps:
        cases.append(("a string output schema", {"outputSchema": {"type": "string"}}))
        cases.append(("a non-schema output schema", {"outputSchema": "nope"}))
    return cases


#: The partition of FR-03 each failing control is (:func:`_failing_controls`, in its words).
FAILING = {"a filter naming an unknown tool": "unknown-tool-in-filter",
           "a bad persona template": "bad-persona-template",
           "a string output schema": "string-output-schema",
           "a non-schema output schema": "non-schema-output-schema"}
#: A control as a partition's word, and the capability that asks for it.
CONTROL_WORD = {"persona": "persona", "toolFilter": "filter", "outputSchema": "schema"}


def _valid_controls(texts: Vocabulary) -> dict[str, Any]:
    """A valid value of each control (the deny filter names a global that stays)."""
    return {"persona": texts.child_persona, "toolFilter": deny_filter(texts),
            "outputSchema": OUTPUT_SCHEMA}


def _paired_failures(ctx: CheckContext, texts: Vocabulary
                     ) -> list[tuple[str, str, dict[str, Any]]]:
    """Two controls at once: one valid, one whose setup fails (every ordered pair the provider
    can be asked for), so a target that sets them up in any order meets a failure after a step
    that succeeded: ``(partition, what, controls)``."""
    valid = supported_controls(ctx.provider, _valid_controls(texts))
    out = []
    for what, broken in _failing_controls(ctx, texts):
        (failing,) = broken
        if what == "a non-schema output schema":
            continue  # one failing schema is enough beside another control
        for key, value in valid.items():
            if key != failing:
                part = f"valid-{CONTROL_WORD[key]}-failing-{CONTROL_WORD[failing]}"
                out.append((part, f"a valid {key} beside {what}", {key: value, **broken}))
    return out


PAIRS = tuple(f"valid-{CONTROL_WORD[a]}-failing-{CONTROL_WORD[b]}"
              for a in CONTROL_WORD for b in CONTROL_WORD if a != b)


def _failed_start(
    ctx: CheckContext, rule: str, texts: Vocabulary, what: str, controls: dict[str, Any], *,
    must_refuse: bool = True,
) -> None:
    """Deploy, start a sibling, then a child whose setup fails: it must be refused with a clear
    error and leave everything as it was (the parent and the sibling unchanged).

    With ``must_refuse`` false (FR-02, whose statement is about what is observable, not about
    refusing) an accepted start is not judged here: whether the failure had to refuse the start
    is FR-03's statement; a refused one must still have been unobservable."""
    comp = composition(ctx.edition, controls, texts.presets[2])
    cfg = config(ctx.edition, tools=texts.tools, texts=texts, presets=comp.presets)
    dep = deploy_or_refusal(ctx, cfg)
    if isinstance(dep, TckError):
        # Refusing the broken preset when it is configured is refusing it before any start.
        ctx.expect(
            rule,
            dep.code in CONFIGURATION_CODES,
            f"a preset with {what} was refused at configuration with {dep.code.value}",
            sorted(c.value for c in CONFIGURATION_CODES),
            dep.to_json(),
        )
        return
    root = dep.root().agent
    with ctx.step(rule, "starting a sibling child"):
        sibling = dep.start(start_request(root, provider_name(ctx), "sibling task", {}))
    dep.unregister_tool(doomed(texts))
    globals_ = [g for g in texts.tools if g != doomed(texts)]
    request = start_request(root, provider_name(ctx), "child task", comp.fields)
    outcome = judge(ctx, cfg, globals_, request)
    if outcome.ok:
        raise AssertionError(f"the check's broken start ({what}) is accepted by the oracle")
    before = snapshot(dep, ctx.gateway, [root, sibling.agent])
    schemas_before = [s.model_dump(mode="json") for s in dep.tool_schemas(root)]
    if must_refuse:
        ctx.expect_error(
            rule, outcome.codes | {ErrorCode.SETUP_FAILED}, lambda: dep.start(request),
            f"a start with {what}",
        )
    else:
        try:
            dep.start(request)
        except TckError:
            pass
        else:
            return
    expect_unchanged(ctx, rule, before, dep, f"a start with {what} (it must publish nothing, "
                     "send no model request, and leave the parent and its other children as "
                     "they were)")
    schemas_after = [s.model_dump(mode="json") for s in dep.tool_schemas(root)]
    ctx.expect(
        rule,
        schemas_after == schemas_before,
        f"after a start with {what} the parent's tool schemas are unchanged",
        schemas_before,
        schemas_after,
    )


FR02 = (
    Partition("FR-02", "composed-child", "a child composed with every control its provider "
              "advertises: published once, already final"),
    Partition("FR-02", "failed-start", "a start whose setup fails: never observable"),
)


@check("FR-02", name="unpublished-setup", partitions=FR02)
def unpublished_setup(ctx: CheckContext) -> None:
    """The child becomes observable once, already final: the ``agent.published`` snapshot is
    the final view and prompt, no event names the child before it; a failed start is never
    observable."""
    each_case(ctx, ["FR-02"], lambda texts: _unpublished_setup(ctx, texts))


def _unpublished_setup(ctx: CheckContext, texts: Vocabulary) -> None:
    controls = supported_controls(ctx.provider, everything(texts))
    comp = composition(ctx.edition, controls, texts.presets[0])
    cfg = config(ctx.edition, tools=texts.tools, texts=texts, presets=comp.presets)
    dep = ctx.deploy(cfg)
    seen = len(dep.events())
    sessions_before = {h.session for h in dep.sessions()}
    request = start_request(dep.root().agent, provider_name(ctx), "child task", comp.fields)
    outcome = judge(ctx, cfg, texts.tools, request)
    oracle_accepts(outcome, "child start")
    with ctx.step("FR-02", "starting a composed child"):
        child = dep.start(request)
    events = dep.events()[seen:]
    about = [
        e for e in events if e.agent == child.agent or (e.session == child.session and e.session)
    ]
    published = [e for e in about if e.kind == "agent.published"]
    ctx.expect(
        "FR-02",
        len(published) == 1 and about[0] is published[0],
        "the child's first lifecycle event is its one agent.published",
        ["agent.published", "..."],
        [e.kind for e in about],
    )
    ctx.expect(
        "FR-02",
        child.session not in sessions_before and child.agent in dep.agents(),
        "the child is published after its start",
        True,
        child.agent in dep.agents(),
    )
    if published:
        prompt, names = snapshot_of(published[0].data)
        expected_prompt = as_pairs(expected_sections(cfg, outcome))
        view = expected_view(outcome, texts.tools, cfg.mode)
        ctx.expect(
            "FR-02",
            prompt is not None and composed_or_framed(ctx, prompt,
                                                      expected_sections(cfg, outcome)),
            "at publication the child's prompt is already final",
            expected_prompt,
            published[0].data.get("snapshot"),
        )
        ctx.expect(
            "FR-02",
            names == sorted(e.name for e in view),
            "at publication the child's view is already final",
            sorted(e.name for e in view),
            published[0].data.get("snapshot"),
        )
    ctx.drew("FR-02", "composed-child")
    failing = _failing_controls(ctx, texts)
    if not failing:
        ctx.inapplicable("FR-02", "failed-start")
        return
    what, broken = failing[0]
    _failed_start(ctx, "FR-02", texts, what, broken, must_refuse=False)
    ctx.drew("FR-02", "failed-start")


#: Output schemas docs/rules.md#FR-03 calls invalid, drawn per kind: an object schema of another
#: JSON Schema type; a list of types that holds "object" beside others; a type that is "object"
#: but for case, spaces or a suffix; a schema without a type; a value that is no object at all.
_PROPERTIES = st.dictionaries(st.text(min_size=1, max_size=8), st.just({"type": "string"}),
                              max_size=2)
_TYPES = ("string", "array", "number", "integer", "boolean", "null")


def _typed(types: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": types}, optional={"properties": _PROPERTIES})


_INVALID_SCHEMAS: dict[str, tuple[str, st.SearchStrategy[Any]]] = {
    "schema-of-another-type": ("an object schema of another type", _typed(st.sampled_from(_TYPES))),
    "list-of-types": ('a list of types holding "object" beside others', _typed(
        st.lists(st.sampled_from(_TYPES), min_size=1, max_size=3, unique=True).flatmap(
            lambda others: st.permutations(["object", *others])))),
    "type-near-object": ('a type that is "object" but for case, spaces or a suffix', _typed(
        st.tuples(st.sampled_from(("", " ", "\t")), st.sampled_from(("object", "Object",
                                                                        "OBJECT", "objecT")),
                  st.sampled_from(("", " ", "s", "\n"))).map("".join).filter(
                      lambda t: t != "object"))),
    "schema-without-type": ("a schema without a type", st.fixed_dictionaries(
        {}, optional={"properties": _PROPERTIES, "title": st.text(max_size=8)})),
    "no-object-at-all": ("a value that is no object: a name, a number, a flag, a list",
                         st.one_of(st.text(max_size=12), st.integers(), st.booleans(),
                                   st.lists(st.just({"type": "object"}), max_size=2))),
}


def _invalid_schema(schema: object) -> bool:
    return not (isinstance(schema, dict) and schema.get("type") == "object")


def _schema_cases(schemas: st.SearchStrategy[Any]) -> Any:
    return lambda drawer: st.tuples(vocabularies(drawer.portable_variables), schemas)


FR03 = (
    *(Partition("FR-03", part, f"{what}, alone") for what, part in FAILING.items()),
    *(Partition("FR-03", name, f"{what}, drawn, alone", cases=_schema_cases(schemas),
                member=lambda case: _invalid_schema(case[1]))
      for name, (what, schemas) in _INVALID_SCHEMAS.items()),
    *(Partition("FR-03", part, f"a valid {part.split('-')[1]} beside a failing "
                f"{part.split('-')[3]}: whichever the target sets up first, a step that "
                "succeeded is undone") for part in PAIRS),
)


@check("FR-03", name="setup-rollback", partitions=FR03)
def setup_rollback(ctx: CheckContext) -> None:
    """A setup failure (unknown tool in the filter, bad persona template, invalid output
    schema), alone or beside a valid control set up before it, fails the start clearly:
    nothing published, no model request, parent unchanged."""
    if not _failing_controls(ctx, EXAMPLE):
        ctx.skip("FR-03", NO_SETUP_CONTROL)
        return
    ctx.inapplicable("FR-03", *(set(FAILING.values()) - {
        FAILING[w] for w, _ in _failing_controls(ctx, EXAMPLE)}))
    ctx.inapplicable("FR-03", *(set(PAIRS) - {p for p, _, _ in _paired_failures(ctx, EXAMPLE)}))
    each_case(ctx, ["FR-03"], lambda texts: _setup_rollback(ctx, texts))
    if Capability.OUTPUT_SCHEMA not in (ctx.provider.capabilities if ctx.provider else []):
        ctx.inapplicable("FR-03", *_INVALID_SCHEMAS)
    elif not any(f.rule == "FR-03" for f in ctx.failures):
        ctx.cover("FR-03", lambda case: _failed_start(
            ctx, "FR-03", case[0], f"the output schema {case[1]!r}", {"outputSchema": case[1]}),
            list(_INVALID_SCHEMAS))


def _setup_rollback(ctx: CheckContext, texts: Vocabulary) -> None:
    for what, broken in _failing_controls(ctx, texts):
        _failed_start(ctx, "FR-03", texts, what, broken)
        ctx.drew("FR-03", FAILING[what])
    for part, what, controls in _paired_failures(ctx, texts):
        _failed_start(ctx, "FR-03", texts, what, controls)
        ctx.drew("FR-03", part)
