"""Providers and the live provider registry (CA family).

A provider runs a child and advertises the controls it can enforce (:data:`spec.CONTROLS`) plus
the descriptive ``inheritsParentContext``. The in-process ``spawn`` (fresh child: only the
prompt) and ``fork`` (child seeded with the parent's completed turns) share one implementation
and advertise every control; ``acp`` stands for an out-of-process agent and advertises no
control, so the CA refusals are exercised too. The registry is live: providers are added and
removed at run time and listeners learn of it (a :class:`ProviderEvent`), which is what the
``subagent`` tool mirrors (ST-02).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Protocol

from subagent_tck.spec import CONTROLS, Capability, ErrorCode, TckError

from .agent import Agent
from .listeners import Listeners
from .loop import AgentLoop, RunResult
from .model import Message
from .store import SessionStore
from .tool import AbortSignal


class ProviderHost(Protocol):
    """What a provider is given of the host that starts its children (the host sits above the
    providers: :class:`~.host.Host` is one)."""

    store: SessionStore
    loop: AgentLoop


class Provider:
    """A backend that runs children. Subclass and override :meth:`seed` or :meth:`run`."""

    def __init__(
        self,
        name: str,
        capabilities: Iterable[Capability] = CONTROLS,
        inherits_parent_context: bool = False,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise TckError(ErrorCode.INVALID_CONFIG, "a provider needs a non-empty string name")
        caps = frozenset(Capability(c) for c in capabilities)
        if Capability.INHERITS_PARENT_CONTEXT in caps:
            raise TckError(
                ErrorCode.INVALID_CONFIG,
                "inheritsParentContext is descriptive: pass inherits_parent_context=True",
            )
        self.name = name
        self.capabilities = caps
        self.inherits_parent_context = inherits_parent_context

    def supports(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def seed(self, host: ProviderHost, parent: Agent) -> list[Message]:
        """The messages a new child starts with: the parent's completed turns when the provider
        inherits the parent context, else none."""
        if not self.inherits_parent_context:
            return []
        return [Message.from_json(m) for m in host.store.turns(parent.session)]

    def run(self, host: ProviderHost, child: Agent, prompt: str, signal: AbortSignal
            ) -> RunResult:
        """Run the child's turn on the host's agent loop."""
        return host.loop.run(child, prompt, signal)

    def __repr__(self) -> str:
        caps = ",".join(sorted(c.value for c in self.capabilities))
        return f"{type(self).__name__}({self.name!r}, [{caps}])"


class InProcessProvider(Provider):
    """``spawn`` and ``fork``: one implementation, every control advertised."""


class AcpProvider(Provider):
    """Stands for an out-of-process (ACP) agent: it enforces no control and starts fresh."""

    def __init__(self, name: str = "acp") -> None:
        super().__init__(name, (), inherits_parent_context=False)


def default_providers() -> list[Provider]:
    """The reference's three providers: ``spawn``, ``fork`` and ``acp``."""
    return [
        InProcessProvider("spawn", CONTROLS, inherits_parent_context=False),
        InProcessProvider("fork", CONTROLS, inherits_parent_context=True),
        AcpProvider("acp"),
    ]


class ProviderEvent(str, Enum):
    """What happened to a provider of the live registry."""

    ADDED = "added"
    REMOVED = "removed"


ProviderListener = Callable[[ProviderEvent, Provider], None]


class ProviderRegistry:
    def __init__(self) -> None:
        self._providers: dict[str, Provider] = {}
        self._listeners: Listeners[[ProviderEvent, Provider]] = Listeners()

    def add(self, provider: Provider) -> None:
        if not isinstance(provider, Provider):
            raise TckError(ErrorCode.INVALID_CONFIG, "add a reference Provider instance")
        if provider.name in self._providers:
            raise TckError(
                ErrorCode.INVALID_CONFIG,
                f"a provider named {provider.name!r} is already registered; remove it first",
            )
        self._providers[provider.name] = provider
        self._listeners.notify(ProviderEvent.ADDED, provider)

    def remove(self, name: str) -> Provider:
        if not isinstance(name, str) or name not in self._providers:
            raise TckError(
                ErrorCode.NO_PROVIDER,
                f"no provider named {name!r} is registered; list providers for names",
            )
        provider = self._providers.pop(name)
        self._listeners.notify(ProviderEvent.REMOVED, provider)
        return provider

    def get(self, name: object) -> Provider | None:
        return self._providers.get(name) if isinstance(name, str) else None

    def all(self) -> tuple[Provider, ...]:
        return tuple(self._providers.values())

    def add_listener(self, listener: ProviderListener) -> Callable[[], None]:
        return self._listeners.add(listener)
