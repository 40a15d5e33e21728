"""The oracle's side of the ``subagent`` tool component in a fuzzed deployment: its loads, the
providers present, the live host depth (docs/rules.md#ST-02, docs/rules.md#ST-05,
docs/rules.md#ST-06), and what a view or a tool schema must then show.

A leaf below the lockstep: :class:`~.lockstep.Lockstep` keeps one :class:`ToolModel` (made on
first use), the operations of :mod:`.subagent` change it, and the lockstep's own comparisons
ask it (:func:`view_rule`, :func:`schema_problem`) without importing the operations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.conformance.core.protocol import ToolSchema
from subagent_tck.conformance.engine.checks._subagent_driver import wording_problems
from subagent_tck.spec import (
    ABSENT,
    FIELD_CAPABILITY,
    SUBAGENT_TOOL_PARAMETERS,
    Capability,
    ErrorCode,
    check_depth,
    decide_tool_call,
    mounts,
    tool_cap,
)

from .model import AgentModel, DeploymentModel

#: The tool names of the classic deployment (a target's own tools aside, the machine draws
#: each deployment's names over the whole tool-name grammar: strategies.pick_tool_names).
TOOL_NAMES = ("subagent", "subagent_second", "delegate")
#: The controls a load sends with every start (docs/rules.md#EN-03), by config field.
LOAD_CONTROLS = ("persona", "toolFilter")


@dataclass
class Load:
    provider: str
    #: None (unset: the live host depth), PROVIDER_MANAGED, or the depth value sent
    max_depth: object = None
    #: the persona / toolFilter the tool sends with every start (null ones left out), and
    #: the model its ``agentOptions`` name
    controls: Mapping[str, object] = field(default_factory=dict)


@dataclass
class ToolModel:
    """The oracle's side of the component: loads, registered providers, the host depth."""

    capabilities: Mapping[str, frozenset[Capability]]
    inherits: Mapping[str, bool]
    loads: dict[str, Load] = field(default_factory=dict)
    present: set[str] = field(default_factory=set)
    host_depth: int = 1
    #: tool name -> the wording of its first mount (description, prompt text)
    wording: dict[str, tuple[str, str]] = field(default_factory=dict)
    calls: int = 0
    #: agent label -> the gateway marker its turns are scripted by
    callers: dict[str, str] = field(default_factory=dict)
    #: every name a load was made under (a subagent tool's, never a plain tool's)
    names: set[str] = field(default_factory=set)
    #: whether the target gates a load's persona / toolFilter at mount (as ST-05 gates a
    #: numeric maxDepth: the tool is absent) or at each call (CA-01 at the start: mounted,
    #: every call errored); None until the target showed which (docs/rules.md#ca-01)
    controls_at_mount: bool | None = None

    def caps_of(self, provider: str) -> frozenset[Capability] | None:
        return self.capabilities.get(provider) if provider in self.present else None

    def lacking(self, load: Load) -> list[Capability]:
        """The capabilities ``load``'s persona / toolFilter / model need that its (registered)
        provider does not advertise."""
        caps = self.caps_of(load.provider) or frozenset()
        return [FIELD_CAPABILITY[k] for k in load.controls if FIELD_CAPABILITY[k] not in caps]

    def mounted(self, name: str) -> bool:
        load = self.loads.get(name)
        if load is None or not mounts(load.max_depth, self.caps_of(load.provider)):
            return False
        return not (self.lacking(load) and self.controls_at_mount)

    def gate_resume(self, provider: str | None, asked: Mapping[str, object]
                    ) -> frozenset[ErrorCode] | None:
        """The refusal a resume of a descriptor on ``provider`` must get (None: none): the
        provider gone (NOT_RESUMABLE, FR-04) or a control it does not advertise
        (UNSUPPORTED_CAPABILITY, CA-01)."""
        if provider is None:
            return None
        caps = self.caps_of(provider)
        if caps is None:
            return frozenset({ErrorCode.NOT_RESUMABLE, ErrorCode.NO_PROVIDER})
        for key, value in asked.items():
            if value is not None and FIELD_CAPABILITY[key] not in caps:
                return frozenset({ErrorCode.UNSUPPORTED_CAPABILITY})
        return None


#: What a wrong tool schema shows: (observation, message, expected, observed, rule).
Problem = tuple[str, str, Any, Any, str]


def schema_problem(model: ToolModel, schemas: list[ToolSchema]) -> Problem | None:
    """The first way a mounted tool's schema is wrong (ST-01..ST-03), or None."""
    for schema in schemas:
        load = model.loads.get(schema.name)
        if load is None or not model.mounted(schema.name):
            continue
        props = schema.parameters.get("properties")
        keys = sorted(props) if isinstance(props, dict) else props
        required = schema.parameters.get("required", [])
        # Which of the two is required is the tool's choice (docs/rules.md#st-01).
        if keys != sorted(SUBAGENT_TOOL_PARAMETERS) or not (
                isinstance(required, list) and set(required) <= set(SUBAGENT_TOOL_PARAMETERS)):
            return ("tool-schema", f"the schema of {schema.name!r} must have exactly "
                    "description and prompt", sorted(SUBAGENT_TOOL_PARAMETERS),
                    {"properties": keys, "required": required}, "ST-01")
        prompt = props.get("prompt") if isinstance(props, dict) else None
        text = prompt.get("description", "") if isinstance(prompt, dict) else ""
        wording = (schema.description, text if isinstance(text, str) else "")
        fork = model.inherits.get(load.provider, False)
        problems = [p for part in wording for p in wording_problems(part, fork)]
        if problems:
            return ("tool-schema", f"the wording of {schema.name!r} (bound to "
                    f"{load.provider}, {'a fork' if fork else 'a fresh child'})",
                    "fork wording" if fork else "fresh-child wording",
                    {"text": list(wording), "problems": problems}, "ST-03")
        first = model.wording.setdefault(schema.name, wording)
        if first != wording:
            return ("tool-schema", f"{schema.name!r} came back with other wording from the "
                    "same provider", list(first), list(wording), "ST-02")
    return None


def view_rule(model: ToolModel, deployment: DeploymentModel, agent: AgentModel | None,
              names: set[str], observed: set[tuple[str, str]],
              header: object = ABSENT) -> str | None:
    """ST-02/ST-05/ST-07 when a view is wrong only about loaded tools: present without its
    provider (or unmountable), or absent with it (at the cap: ST-07). ``header``: the
    agent's durable depth, when its session is recorded nowhere (a tool call's child)."""
    if not names or not names <= set(model.loads):
        return None
    for name in sorted(names):
        load = model.loads[name]
        shown = any(n == name for n, _ in observed)
        if shown and not model.mounted(name):
            present = load.provider in model.present
            return "ST-05" if present else "ST-02"
        if not shown and model.mounted(name) and name in deployment.globals:
            if agent is not None and (agent.scope.issued or agent.scope.restrictions):
                return None  # a restriction's business (installed or disposed): TF's diagnosis
            cap = tool_cap(load.max_depth, model.host_depth)
            if header is ABSENT:
                header = None if agent is None else deployment.sessions[agent.session].header
            runtime = ABSENT if agent is None else agent.runtime
            # at the cap (the load's own, or the host setting's): the tool must stay visible
            if agent is not None and check_depth(header).ok and (
                    decide_tool_call(header, runtime, cap)
                    or decide_tool_call(header, runtime, model.host_depth)):
                return "ST-07"
            return "ST-02"
    return None
