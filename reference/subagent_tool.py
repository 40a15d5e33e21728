"""The model-facing ``subagent`` tool (docs/rules.md ST-01..ST-09).

One load binds the tool to exactly one provider by configuration; the model sees only
``description`` and ``prompt`` (ST-01). The tool mirrors its provider's lifecycle: it is a
global tool only while the provider is registered, in any load order, and each mount derives its
wording afresh from the provider's ``inheritsParentContext`` (ST-02, ST-03). Loads are keyed by
``toolName``; a second load of a name is refused (ST-04). ``maxDepth`` is validated at load, a
numeric cap needs ``depthLimit`` at mount and ``'provider-managed'`` sends no cap (ST-05).
Without ``maxDepth`` the cap is the host's live depth setting, read at each call (ST-06).

At the cap the tool stays visible and a call is refused with ``DEPTH_EXCEEDED`` before anything
is started (ST-07); with runtime context on, the calling agent's requests carry a notice once
per (cap, durable depth) (ST-08). A started run is awaited and disposed on every path, the
tool's abort signal cancels it, and a stop reason other than ``completed`` is an errored result
naming it (ST-09).

Configuration (``load_subagent_tool(host, config)``): ``provider`` (required), ``toolName``
(default ``subagent``), ``maxDepth`` (a depth, ``'provider-managed'``, or unset/null: the live
host setting), ``persona`` and ``toolFilter`` (request-controls edition only, each needing the
provider's capability; refused in preset-composition with REQUEST_CONTROLS_REFUSED),
``agentOptions`` (``{model?}``: the children's model, which needs ``modelSelection`` at mount,
MO-01) and ``preset`` (the one preset its children are started with, UNKNOWN_PRESET at load when
the deployment has none of that name). The model never chooses a preset: it chooses a tool, and
the tool's wording names none (docs/rules.md#SP-02, its Decision); a call the caller's spawn
policies refuse is an errored result (SPAWN_DENIED) and starts nothing (SP-01).

A host may swap the tool class (``Host.subagent_tool_class``), which is how the zoo breaks one
step: wording, parameters, mount, guard, notice or the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from subagent_tck.spec import (
    PROVIDER_MANAGED,
    RUN_CODE,
    SUBAGENT_TOOL_NAME,
    Capability,
    Edition,
    ErrorCode,
    StopReason,
    TckError,
    check_depth,
    decide_start_depth,
    read_json_number,
    validate_restriction,
)

from .provider import ProviderEvent
from .tool import ExecutionContext, Tool, ToolResult

if TYPE_CHECKING:
    from .agent import Agent
    from .delegation import Run
    from .host import Host
    from .loop import RunResult
    from .provider import Provider

#: The key of this component's state in ``host.component_state``.
COMPONENT = "subagent-tool"
#: Emitted when a provider appears but the tool cannot be mounted on it.
MOUNT_FAILED = "subagent-tool.mount-failed"
CONFIG_KEYS = ("provider", "toolName", "maxDepth", "persona", "toolFilter", "agentOptions",
               "preset")

FRESH_DESCRIPTION = (
    "Delegate a self-contained task to a child agent and get its final answer back. The child "
    "starts fresh: it does not see this conversation, only the prompt you write."
)
FRESH_PROMPT = (
    "A standalone task for the child. It does not see this conversation, so include every "
    "fact, file name, constraint and expected result it needs."
)
FORK_DESCRIPTION = (
    "Delegate a task to a child agent that forks this conversation and get its final answer "
    "back. The child is seeded with this conversation's completed turns, so it already knows "
    "the background."
)
FORK_PROMPT = (
    "The task for the child. It already has this conversation's completed turns, so state only "
    "what is new: the task itself and anything decided since."
)
DESCRIPTION_PARAMETER = "A short label (a few words) for the task, shown to the user."


def _config_error(message: str) -> TckError:
    return TckError(ErrorCode.INVALID_CONFIG, message)


@dataclass(frozen=True)
class SubagentToolConfig:
    """A validated configuration; ``max_depth`` None means the host's live setting."""

    provider: str
    tool_name: str = SUBAGENT_TOOL_NAME
    max_depth: int | str | None = None
    persona: str | None = None
    tool_filter: Mapping[str, Any] | None = None
    agent_options: Mapping[str, Any] = field(default_factory=dict)
    preset: str | None = None

    @classmethod
    def parse(cls, raw: object, edition: Edition) -> SubagentToolConfig:
        """Validate a raw configuration (INVALID_CONFIG, INVALID_DEPTH,
        REQUEST_CONTROLS_REFUSED); capabilities are checked at mount."""
        if not isinstance(raw, Mapping):
            raise _config_error("the subagent tool's configuration is an object")
        unknown = sorted(str(k) for k in raw if k not in CONFIG_KEYS)
        if unknown:
            raise _config_error(
                f"unknown subagent tool option(s) {', '.join(unknown)}; use "
                + ", ".join(CONFIG_KEYS)
            )
        provider = raw.get("provider")
        if not isinstance(provider, str) or not provider:
            raise _config_error("provider is required: the name of the provider to bind")
        name = raw.get("toolName", SUBAGENT_TOOL_NAME)
        if not isinstance(name, str) or not name or name == RUN_CODE:
            raise _config_error(f"toolName must be a non-empty tool name other than {RUN_CODE}")
        persona, tool_filter = raw.get("persona"), raw.get("toolFilter")
        pairs = (("persona", persona), ("toolFilter", tool_filter))
        carried = [k for k, v in pairs if v is not None]
        if carried and edition is Edition.PRESET_COMPOSITION:
            raise TckError(
                ErrorCode.REQUEST_CONTROLS_REFUSED,
                f"{' and '.join(carried)} on the subagent tool are refused in the "
                "preset-composition edition (EN-02); compose children with presets instead",
                {"fields": carried},
            )
        if persona is not None and not isinstance(persona, str):
            raise _config_error("persona must be a string template")
        if tool_filter is not None:
            named = [n for k in ("allow", "deny") if isinstance(tool_filter, Mapping)
                     for n in (tool_filter.get(k) or ()) if isinstance(n, str)]
            verdict = validate_restriction(tool_filter, named)
            if verdict.code is not None:
                raise TckError(verdict.code, f"toolFilter: {verdict.reason}")
        preset = raw.get("preset")
        if preset is not None and (not isinstance(preset, str) or not preset):
            raise _config_error("preset must be the name of one of the deployment's presets")
        return cls(
            provider, name, _parse_max_depth(raw.get("maxDepth")), persona, tool_filter,
            _parse_agent_options(raw.get("agentOptions")), preset,
        )


def _parse_max_depth(value: object) -> int | str | None:
    if value is None or value == PROVIDER_MANAGED:
        return None if value is None else PROVIDER_MANAGED
    verdict = check_depth(value)
    if verdict.value is None:
        raise TckError(
            ErrorCode.INVALID_DEPTH,
            f"maxDepth {value!r}: {verdict.advice()}, or '{PROVIDER_MANAGED}' to send no cap, "
            "or leave it unset to use the host's depth setting",
        )
    return verdict.value


def _parse_agent_options(value: object) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or any(k != "model" for k in value):
        raise _config_error("agentOptions is an object with an optional model name")
    model = value.get("model")
    if model is not None and not isinstance(model, str):
        raise _config_error("agentOptions.model must be a model name string")
    return dict(value)


class SubagentTool:
    """One load of the tool: bound to one provider, mounted while that provider exists."""

    def __init__(self, host: Host, config: SubagentToolConfig) -> None:
        self.host = host
        self.config = config
        self.mounted: Tool | None = None
        self._noticed: dict[str, tuple[int, int]] = {}
        self._removers: list[Callable[[], None]] = []

    @property
    def name(self) -> str:
        return self.config.tool_name

    # --- lifecycle (ST-02, ST-05) ----------------------------------------------------------

    def load(self) -> None:
        """Mount at once when the provider is registered (errors propagate), and follow it."""
        provider = self.host.providers.get(self.config.provider)
        if provider is not None:
            self.mount(provider)
        self._removers.append(self.host.providers.add_listener(self.on_provider))
        self.host.context_hooks.append(self.notice)
        self._removers.append(lambda: self.host.context_hooks.remove(self.notice))

    def unload(self) -> None:
        for remove in reversed(self._removers):
            remove()
        self._removers.clear()
        self.unmount()

    def on_provider(self, kind: ProviderEvent, provider: Provider) -> None:
        if provider.name != self.config.provider:
            return
        if kind is ProviderEvent.REMOVED:
            self.unmount()
            return
        try:
            self.mount(provider)
        except TckError as exc:  # the provider stays; the tool does not exist, loudly logged
            self.host.events.emit(
                MOUNT_FAILED, data={"tool": self.name, "provider": provider.name, **exc.to_json()}
            )

    def gate(self, provider: Provider) -> None:
        """The capabilities this configuration needs (ST-05; CA-01 for the tool's defaults)."""
        needs = {
            Capability.DEPTH_LIMIT: isinstance(self.config.max_depth, int),
            Capability.PERSONA: self.config.persona is not None,
            Capability.TOOL_FILTER: self.config.tool_filter is not None,
            Capability.MODEL_SELECTION: self.config.agent_options.get("model") is not None,
        }
        for capability, needed in needs.items():
            if needed and not provider.supports(capability):
                raise TckError(
                    ErrorCode.UNSUPPORTED_CAPABILITY,
                    f"the {self.name!r} tool's configuration needs {capability.value}, which "
                    f"provider {provider.name!r} does not advertise; drop that option or bind "
                    "a provider that advertises it",
                    {"capability": capability.value, "provider": provider.name},
                )

    def mount(self, provider: Provider) -> None:
        self.gate(provider)
        description, prompt_text = self.wording(provider)
        tool = Tool(self.name, self.call, description, self.parameters(prompt_text))
        self.host.registry.register(tool)
        self.mounted = tool

    def unmount(self) -> None:
        if self.mounted is not None and self.host.registry.get(self.name) is self.mounted:
            self.host.registry.unregister(self.name)
        self.mounted = None

    # --- what the model sees (ST-01, ST-03) --------------------------------------------------

    def wording(self, provider: Provider) -> tuple[str, str]:
        """Description and prompt text from the provider's conversation-history descriptor."""
        if provider.inherits_parent_context:
            return FORK_DESCRIPTION, FORK_PROMPT
        return FRESH_DESCRIPTION, FRESH_PROMPT

    def parameters(self, prompt_text: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": DESCRIPTION_PARAMETER},
                "prompt": {"type": "string", "description": prompt_text},
            },
            "required": ["description", "prompt"],
            "additionalProperties": False,
        }

    # --- depth (ST-06, ST-07, ST-08) ------------------------------------------------------

    def cap(self) -> int | None:
        """The cap for a call now: configured, none (provider-managed), or the live setting."""
        if self.config.max_depth == PROVIDER_MANAGED:
            return None
        if isinstance(self.config.max_depth, int):
            return self.config.max_depth
        return self.host.host_depth

    def durable_depth(self, agent: Agent) -> object:
        """The caller's depth as its stored session header says (raw, judged by the oracle)."""
        try:
            return read_json_number(self.host.store.header(agent.session).depth_json)
        except (TckError, ValueError):
            return agent.depth

    def guard(self, agent: Agent) -> ToolResult | None:
        """Refuse at the cap before anything is started; other faults are the start's."""
        cap = self.cap()
        if cap is None:
            return None
        decision = decide_start_depth(self.durable_depth(agent), agent.runtime_depth, cap)
        if decision.code is not ErrorCode.DEPTH_EXCEEDED:
            return None
        return ToolResult.error(
            ErrorCode.DEPTH_EXCEEDED.value,
            f"DEPTH_EXCEEDED: {decision.reason}; no child was started. Do the task directly.",
        )

    def notice(self, agent: Agent) -> Sequence[str]:
        """The at-cap notice for ``agent``'s next request, once per (cap, durable depth)."""
        cap = self.cap()
        depth = check_depth(self.durable_depth(agent)).value
        if (
            not self.host.runtime_context
            or cap is None
            or depth is None
            or not self.seen_by(agent)
            or depth + 1 <= cap
        ):
            self._noticed.pop(agent.id, None)
            return ()
        if self._noticed.get(agent.id) == (cap, depth):
            return ()
        self._noticed[agent.id] = (cap, depth)
        return (
            f"Delegation limit reached: you are at depth {depth} and the depth cap is {cap}, so "
            f"the {self.name} tool will refuse to start a child. Work directly on the task.",
        )

    def seen_by(self, agent: Agent) -> bool:
        """Whether ``agent`` is offered this tool: its view has the mounted tool under the
        name (not hidden by a filter, not shadowed by a local): the agents the notice is for
        (docs/rules.md#st-08)."""
        entry = self.host.resolver.lookup(agent.scope, self.name)
        return entry is not None and entry.tool is self.mounted

    # --- a call (ST-09) --------------------------------------------------------------------

    def read_arguments(self, arguments: Mapping[str, Any]) -> str:
        extra = sorted(str(k) for k in arguments if k not in ("description", "prompt"))
        if extra:
            raise TckError(
                ErrorCode.INVALID_REQUEST,
                f"unknown argument(s) {', '.join(extra)}: the tool takes description and prompt",
            )
        prompt, description = arguments.get("prompt"), arguments.get("description", "")
        if not isinstance(prompt, str) or not prompt.strip() or not isinstance(description, str):
            raise TckError(
                ErrorCode.INVALID_REQUEST, "give a string description and a non-empty prompt"
            )
        return prompt

    def start_request(self, prompt: str) -> dict[str, Any]:
        request: dict[str, Any] = {"provider": self.config.provider, "prompt": prompt}
        if isinstance(self.config.max_depth, int):
            request["maxDepth"] = self.config.max_depth
        if self.config.persona is not None:
            request["persona"] = self.config.persona
        if self.config.tool_filter is not None:
            request["toolFilter"] = self.config.tool_filter
        if self.config.preset is not None:
            request["preset"] = self.config.preset
        if self.config.agent_options.get("model") is not None:
            request["model"] = self.config.agent_options["model"]
        return request

    def call(self, arguments: Mapping[str, Any], context: ExecutionContext) -> ToolResult:
        prompt = self.read_arguments(arguments)
        caller = self.host.agent(context.agent)
        refusal = self.guard(caller)
        if refusal is not None:
            return refusal
        if context.signal.aborted:
            return self.outcome_of(StopReason.ABORTED, context.signal.reason)
        run = self.host.start(caller.id, self.start_request(prompt))
        return self.collect(run, context)

    def collect(self, run: Run, context: ExecutionContext) -> ToolResult:
        """Await the run with the tool's abort bridged to it; dispose on every path."""
        context.signal.on_abort(run.cancel)
        try:
            result = run.result()
        finally:
            run.dispose()
        return self.outcome(result)

    def outcome(self, result: RunResult) -> ToolResult:
        return self.outcome_of(result.stop_reason, result.output)

    def outcome_of(self, reason: StopReason, output: object) -> ToolResult:
        if reason is StopReason.COMPLETED:
            return ToolResult(content=output)
        return ToolResult.error(
            None,
            f"the child run stopped with stop reason {reason.value!r}, not completed; its "
            "partial output is withheld",
        )


def _loads(host: Host) -> dict[str, SubagentTool]:
    state: dict[str, SubagentTool] = host.component_state.setdefault(COMPONENT, {})
    return state


def load_subagent_tool(host: Host, config: Mapping[str, Any]) -> SubagentTool:
    """Validate, refuse a duplicate name (ST-04), load and, if its provider exists, mount."""
    parsed = SubagentToolConfig.parse(config, host.edition)
    if parsed.preset is not None and parsed.preset not in host.presets:
        raise TckError(
            ErrorCode.UNKNOWN_PRESET,
            f"the subagent tool's preset {parsed.preset!r} is not defined by the deployment; "
            "define it first or drop the option",
            {"preset": parsed.preset},
        )
    loads = _loads(host)
    if parsed.tool_name in loads:
        raise TckError(
            ErrorCode.DUPLICATE_TOOL_NAME,
            f"a subagent tool named {parsed.tool_name!r} is already loaded (bound to "
            f"{loads[parsed.tool_name].config.provider!r}); give this load a distinct toolName",
            {"toolName": parsed.tool_name},
        )
    tool_class: type[SubagentTool] = getattr(host, "subagent_tool_class", SubagentTool)
    tool = tool_class(host, parsed)
    tool.load()
    loads[parsed.tool_name] = tool
    return tool


def unload_subagent_tool(host: Host, tool_name: str) -> None:
    """Unload by name: the tool and its listeners go; the name is free again."""
    tool = _loads(host).pop(tool_name, None) if isinstance(tool_name, str) else None
    if tool is None:
        raise TckError(
            ErrorCode.UNKNOWN_TOOL,
            f"no subagent tool named {tool_name!r} is loaded; "
            f"loaded: {', '.join(_loads(host)) or 'none'}",
        )
    tool.unload()

