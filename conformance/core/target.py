"""What the kit certifies: a :class:`Target` and the :class:`Deployment`\\ s it creates.

Both are transports' business: the in-process transport calls a Python implementation, the HTTP
transport sends the same operations over the driver API. Checks see only these two protocols.

Conventions every implementation follows:

- A rejection raises :class:`~subagent_tck.spec.TckError` with the stable code (over HTTP, a
  JSON error body); a rejected operation changes nothing observable.
- ``agent`` arguments are agent ids from :class:`~.protocol.AgentRef`; ``None`` for a tool
  registration means the global registry.
- Any other exception is a broken target: the check that saw it reports ``error``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from subagent_tck.spec import PresentationMode

from .gateway import Gateway
from .protocol import (
    AgentRef,
    DeploymentConfig,
    Event,
    Invocation,
    Observation,
    ProviderInfo,
    RunResult,
    SdkCall,
    Section,
    SessionHeader,
    StartRequest,
    SubagentToolConfig,
    TargetInfo,
    ToolResult,
    ToolSchema,
    ToolSpec,
    ViewEntry,
)


@runtime_checkable
class Deployment(Protocol):
    """One host runtime, fresh for each check (isolation by deployment, not by process)."""

    # agents and sessions
    def root(self) -> AgentRef:
        """The top-level agent created with the deployment (depth 0, native mode)."""

    def create_agent(
        self, *, header_depth: Any = 0, runtime_depth: Any = None, has_runtime_depth: bool = False
    ) -> AgentRef:
        """A new top-level agent whose durable header has ``header_depth`` and, when
        ``has_runtime_depth``, whose runtime ``subagentDepth`` is ``runtime_depth``. A header
        depth outside the domain may be refused here (INVALID_DEPTH) or at the first start from
        that agent (DE-06); a bad runtime depth makes every start from it fail (DE-07)."""

    def put_session_header(self, header: SessionHeader) -> None:
        """Write a durable header as stored data, bypassing validation (the seam DE-06 uses
        to plant a malformed stored depth)."""

    def resume(self, session: str) -> AgentRef:
        """Cold-resume a stored session: a child gets its descriptor's composition back before
        it is published (FR-04); a malformed stored depth is refused (DE-06)."""

    def sessions(self) -> list[SessionHeader]: ...

    def agents(self) -> list[str]:
        """The ids of the agents that are published (observable) now."""

    def events(self) -> list[Event]: ...

    def invocations(self) -> list[Invocation]:
        """Every tool body that ran, in order."""

    def observe(self) -> Observation:
        """``sessions``, ``agents``, ``events`` and ``invocations`` at once (one round trip for
        the checks' "nothing changed" snapshots)."""

    # tools, restrictions, presentation
    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None: ...

    def unregister_tool(self, name: str, agent: str | None = None) -> None: ...

    def install_restriction(self, agent: str, restriction: Any) -> str:
        """Install a raw ``{allow?, deny?}`` value in the agent's scope; returns its handle."""

    def dispose_restriction(self, agent: str, handle: str) -> None:
        """Lift one restriction; disposing again is harmless (TF-14)."""

    def install_spawn_policy(self, agent: str, policy: Any) -> str:
        """Install a raw spawn policy ``{allow?, deny?}`` over preset names in the agent's
        scope: from then on it may start only the presets every policy of its scope admits
        (docs/rules.md#SP-01). A policy naming a preset the deployment does not define is
        refused (INVALID_SPAWN_POLICY, every such name in ``details.offending``). Returns its
        handle."""

    def dispose_spawn_policy(self, agent: str, handle: str) -> None:
        """Lift one spawn policy; disposing again is harmless."""

    def set_mode(self, agent: str, mode: PresentationMode) -> None: ...

    def view(self, agent: str | None = None) -> list[ViewEntry]:
        """The scope's view; ``None``: the global view (no restrictions, no locals)."""

    def tool_schemas(self, agent: str) -> list[ToolSchema]:
        """The wire tool schemas the agent's next model request would carry."""

    def lookup(self, agent: str, name: str) -> ViewEntry | None: ...

    def execute(self, agent: str, name: str, arguments: dict[str, Any]) -> ToolResult: ...

    def sdk_bindings(self, agent: str) -> list[str]: ...

    def run_code(self, agent: str, calls: list[SdkCall]) -> list[ToolResult]:
        """The agent's model calls ``run_code`` once, with a program that makes ``calls`` to
        the SDK the runtime generates for the agent's scope, ``tools.<name>(arguments)``, one
        after the other: one result per call, in order (protocol 1.1,
        docs/driver-api.md#run-code).

        A bound name runs its body once with its ``arguments``, and its result is that call's
        answer. A name the SDK does not bind (hidden, unregistered, ``run_code`` itself, or any
        name in ``native`` mode, where ``run_code`` is not offered) gets an error result with
        code ``UNKNOWN_TOOL`` and runs no body."""

    def prompt(self, agent: str) -> list[Section]:
        """The agent's prompt sections as assembled now, rendered, in order."""

    # providers and children
    def providers(self) -> list[ProviderInfo]: ...

    def remove_provider(self, name: str) -> None: ...

    def add_provider(self, name: str) -> None:
        """Register again one of the target's own providers, by name (ST-02)."""

    def start(self, request: StartRequest) -> RunResult:
        """Start a child and run it until it stops (its model is the kit's gateway)."""

    def run_turn(self, agent: str, prompt: str) -> RunResult:
        """Run one turn of an agent (for example the root, so that its scripted model can call
        the ``subagent`` tool)."""

    def abort_turn(self, agent: str) -> None:
        """Abort the agent's running turn: the abort signal its tool calls run under fires, so
        a ``subagent`` call cancels its child run (ST-09). Called from a gateway reply hook
        while the turn waits for a model; a no-op when the agent has no running turn."""

    # the subagent tool component and host settings
    def load_subagent_tool(self, config: SubagentToolConfig) -> None: ...

    def unload_subagent_tool(self, tool_name: str) -> None: ...

    def set_host_depth(self, value: Any) -> None: ...

    def set_runtime_context(self, enabled: bool) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Target(Protocol):
    """Something certifiable: it describes itself and creates fresh deployments."""

    def info(self) -> TargetInfo: ...

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Deployment: ...

    def close(self) -> None: ...


__all__ = ["Deployment", "ProviderInfo", "Target"]
