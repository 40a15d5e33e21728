"""Shared helpers for the reference runtime's tests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from subagent_tck.reference import (
    ExecutionContext,
    Host,
    ModelReply,
    ScriptedModel,
    SessionStore,
    Tool,
    ToolCall,
)
from subagent_tck.spec import Edition


def echo(name: str, log: list[tuple[str, str]] | None = None, description: str = "") -> Tool:
    """A tool whose body echoes its call and, given ``log``, records (tool, agent)."""

    def body(arguments: Mapping[str, Any], context: ExecutionContext) -> dict[str, Any]:
        if log is not None:
            log.append((name, context.agent))
        return {"tool": name, "arguments": dict(arguments)}

    return Tool(name, body, description or f"tool {name}")


def calls(*names: str, arguments: Mapping[str, Any] | None = None) -> ModelReply:
    return ModelReply(
        tool_calls=tuple(ToolCall(f"c{i}", n, dict(arguments or {})) for i, n in enumerate(names))
    )


def make_host(
    tools: tuple[str, ...] = ("a", "b", "c"),
    *,
    edition: Edition = Edition.REQUEST_CONTROLS,
    persona: str | None = "Deployment persona.",
    model: ScriptedModel | None = None,
    **kwargs: Any,
) -> Host:
    host = Host(model or ScriptedModel(), edition=edition, persona=persona, **kwargs)
    for name in tools:
        host.register_tool(echo(name))
    return host


@pytest.fixture(autouse=True)
def _close_stores(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close every session store a test opened (hosts open one each), so that no SQLite
    connection is left to the garbage collector, which warns about each on Python 3.13."""
    opened: list[SessionStore] = []
    original = SessionStore.__init__

    def tracked(self: SessionStore, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(SessionStore, "__init__", tracked)
    yield
    for store in opened:
        store.close()  # closing twice is harmless: a test may have closed it already


def state(host: Host) -> dict[str, Any]:
    """Everything observable about a host, for "state before equals state after"."""
    model = host.model
    return {
        "sessions": [(h.session, h.parent, h.depth_json, h.descriptor) for h in host.sessions()],
        "turns": {h.session: host.store.turns(h.session) for h in host.sessions()},
        "agents": [a.id for a in host.agents()],
        "events": host.events.events(),
        "requests": len(model.requests) if isinstance(model, ScriptedModel) else None,
        "globals": host.registry.names(),
        "scopes": {
            a.id: (
                [(e.name, e.origin) for e in host.view(a.id)],
                a.scope.restrictions(),
                a.scope.sections(),
                a.scope.mode,
            )
            for a in host.agents()
        },
        "presets": dict(host.presets),
        "providers": [p.name for p in host.providers.all()],
        "host_depth": host.host_depth,
        "runtime_context": host.runtime_context,
    }


@pytest.fixture
def host() -> Iterator[Host]:
    h = make_host()
    yield h
    h.close()
