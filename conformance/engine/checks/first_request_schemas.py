"""FR-01 on what the model is given, not only names: the tool schemas of the child's first
request carry each tool's parameters as it was registered (docs/rules.md#FR-01: "filtered tool
schemas").

Global tools are registered with drawn JSON Schema parameters, flat (properties of scalar types,
enums, required names) or nested (objects inside objects, arrays of objects); a child is started
through the provider under test (with a deny filter where it advertises toolFilter, so that the
schemas are the filtered ones) and its first request's schema of every offered global must hold
the registered parameters: every key, nested property and list of them as registered. A runtime
may add to a schema (``additionalProperties``, ``$schema``): what it must not do is lose or change
what the model was to see. Each shape is drawn at every seed
(:meth:`~..check.CheckContext.cover`).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import Capability

from ...core.protocol import DeploymentConfig, ToolSpec
from ..check import CheckContext, check
from ..partitions import Partition
from ._names import tool_names
from ._starts import capable, composition, provider_name, start_request

RULE = "FR-01"

_KEY = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz_"), min_size=1, max_size=10)
_WORDS = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz -"), min_size=1, max_size=20)
_SCALAR = st.one_of(
    st.sampled_from(("string", "integer", "number", "boolean")).map(lambda t: {"type": t}),
    st.tuples(_WORDS, st.lists(_KEY, min_size=1, max_size=4, unique=True)).map(
        lambda t: {"type": "string", "description": t[0], "enum": t[1]}),
)


def _object(properties: Any) -> Any:
    return st.dictionaries(_KEY, properties, min_size=1, max_size=4).flatmap(
        lambda props: st.lists(st.sampled_from(sorted(props)), unique=True).map(
            lambda required: {"type": "object", "properties": props,
                              **({"required": required} if required else {})}))


FLAT = _object(_SCALAR)
_INNER = _object(_SCALAR)
NESTED = _object(st.one_of(_SCALAR, _INNER, _INNER.map(lambda o: {"type": "array", "items": o})))


def _nested(schema: dict[str, Any]) -> bool:
    return any("properties" in p or "items" in p for p in schema["properties"].values())


@st.composite
def tools_st(draw: Any, parameters: Any, nested: bool) -> list[ToolSpec]:
    """Two to four globals, each with drawn parameters (one nested at least, for ``nested``)."""
    names = draw(tool_names(2, 4))
    specs = [ToolSpec(name=n, description=f"tool {n}", parameters=draw(parameters))
             for n in names]
    if nested and not any(_nested(s.parameters) for s in specs):
        deep = draw(NESTED.filter(_nested))
        specs[0] = specs[0].model_copy(update={"parameters": deep})
    return specs


PARTITIONS = (
    Partition(RULE, "flat-parameters", "globals whose parameters are properties of scalar types, "
              "enums and required names", cases=tools_st(FLAT, False),
              member=lambda specs: not any(_nested(s.parameters) for s in specs)),
    Partition(RULE, "nested-parameters", "globals whose parameters nest objects and arrays of "
              "objects", cases=tools_st(NESTED, True),
              member=lambda specs: any(_nested(s.parameters) for s in specs)),
)


def holds(given: Any, registered: Any) -> bool:
    """Whether ``given`` holds everything of ``registered``: its keys with values that hold
    theirs (more keys allowed), lists of names as sets, other values equal."""
    if isinstance(registered, dict):
        return isinstance(given, dict) and all(k in given and holds(given[k], v)
                                               for k, v in registered.items())
    if isinstance(registered, list) and all(isinstance(v, str) for v in registered):
        return isinstance(given, list) and set(given) == set(registered)
    if isinstance(registered, list):
        return isinstance(given, list) and len(given) == len(registered) and all(
            holds(g, r) for g, r in zip(given, registered, strict=True))
    return bool(given == registered)


def schemas(ctx: CheckContext, specs: list[ToolSpec]) -> None:
    hidden = specs[-1].name
    controls = ({"toolFilter": {"deny": [hidden]}}
                if capable(ctx.provider, Capability.TOOL_FILTER) else {})
    comp = composition(ctx.edition, controls)
    dep = ctx.deploy(DeploymentConfig(edition=ctx.edition, tools=specs, presets=comp.presets))
    request = start_request(dep.root().agent, provider_name(ctx), "child task", comp.fields)
    with ctx.step(RULE, "starting a child"):
        result = dep.start(request)
    requests = ctx.gateway.requests(result.agent)
    ctx.expect(RULE, bool(requests), "the child made a model request", ">= 1", len(requests))
    if not requests:
        return
    offered = {t.name: t.parameters for t in requests[0].tools}
    for spec in specs:
        if spec.name not in offered:
            continue  # which tools are offered is FR-01's other check's (first-request-complete)
        ctx.expect(RULE, holds(offered[spec.name], spec.parameters),
                   f"the first request's schema of {spec.name!r} must carry its parameters as "
                   "registered (the model is given the tool's schema, not only its name)",
                   spec.parameters, offered[spec.name])


@check(RULE, name="first-request-tool-schemas", partitions=PARTITIONS)
def first_request_tool_schemas(ctx: CheckContext) -> None:
    """The child's first request carries each offered global's parameters as registered, flat
    and nested."""
    ctx.cover(RULE, lambda specs: schemas(ctx, specs))
