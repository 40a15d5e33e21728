"""Global tools a target brings itself: a plugin's tool, a runtime's built-in
(docs/certify.md#tools-the-target-brings).

A runtime loaded with a plugin (a roster that registers one ``delegate`` tool) has global tools
the kit never registered. The rules treat them like any global tool, but the kit cannot judge
them: it does not know their arguments, their bodies do not report to its invocation log, and
which children should see them depends on filters the kit draws over *its* names. So a
certification finds them once, on an empty deployment (:func:`find`), names them in the
certificate, and leaves them out of everything the checks judge (:func:`hiding`): views, tool
schemas, SDK bindings, published snapshots and the tools of every model request the gateway
records. Everything else about the target is judged as before; the kit never calls them.

A name the catalogue gives a meaning to (``run_code``, ``structured_output``, the ``subagent``
tool) is never taken for the target's own: a target that shows one on an empty deployment is
judged on it (TF-06, FR-01, ST-02).
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from typing import Any

from subagent_tck.spec import RUN_CODE, STRUCTURED_OUTPUT, SUBAGENT_TOOL_NAME, Edition

from ..core.gateway import Gateway
from ..core.protocol import DeploymentConfig, Event, Observation, TargetInfo, ToolSpec
from ..core.target import Deployment, Target
from .check import Inexpressible

#: Names the rules give a meaning to: never the target's own.
NEVER_OWN = frozenset({RUN_CODE, STRUCTURED_OUTPUT, SUBAGENT_TOOL_NAME})


def find(target: Target, edition: Edition) -> tuple[str, ...]:
    """The tools an empty deployment of ``target`` (no tools, no presets) offers in its global
    view or its root agent's view, in the order the target lists them. A target that cannot
    deploy one has none the kit can know of: the checks meet its refusal themselves."""
    try:
        deployment = target.deploy(DeploymentConfig(edition=edition), Gateway())
    except Exception:  # the checks report what the target does with a deployment
        return ()
    names: list[str] = []
    try:
        with contextlib.suppress(Exception):
            names += [entry.name for entry in deployment.view(None)]
        with contextlib.suppress(Exception):  # a runtime may offer its agents tools of its own
            names += [entry.name for entry in deployment.view(deployment.root().agent)]
    finally:
        with contextlib.suppress(Exception):
            deployment.close()
    return tuple(dict.fromkeys(n for n in names if isinstance(n, str) and n not in NEVER_OWN))


def of(target: Target) -> frozenset[str]:
    """The own tools hidden from the checks of ``target`` (none unless :func:`hiding` made it)."""
    own: object = getattr(target, "own_tools", None)
    return own if isinstance(own, frozenset) else frozenset()


def hiding(target: Target, own: Collection[str]) -> Target:
    """``target`` with its own tools ``own`` left out of what the checks observe (nothing to
    hide: ``target`` itself)."""
    return _Hiding(target, frozenset(own)) if own else target


class _Hiding:
    """A :class:`Target` whose deployments leave the target's own tools out."""

    def __init__(self, inner: Target, own: frozenset[str]) -> None:
        self.inner = inner
        #: the names a check or campaign must not give a tool of its own (see :func:`of`)
        self.own_tools = own

    def info(self) -> TargetInfo:
        return self.inner.info()

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Deployment:
        _refuse_clashes(self.own_tools, config.tools)
        gateway.hide_tools(self.own_tools)
        deployment: Any = _HidingDeployment(self.inner.deploy(config, gateway), self.own_tools)
        return deployment  # type: ignore[no-any-return]

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:  # a transport's extras (faults, url, ...)
        return getattr(self.inner, name)


def _refuse_clashes(own: frozenset[str], tools: Collection[ToolSpec]) -> None:
    clash = sorted({t.name for t in tools} & own)
    if clash:
        raise Inexpressible(f"the target brings its own global tool(s) {clash}; the kit "
                            "cannot register another of that name")


class _HidingDeployment:
    """A deployment whose observations leave out the target's own tools (the other operations
    pass through unchanged), read alone or carried by a batch (docs/driver-api.md#batch: the
    fuzz lockstep sends its reads with the change they follow, fuzz/ahead.py)."""

    def __init__(self, inner: Deployment, own: frozenset[str]) -> None:
        self._inner = inner
        self._own = own

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        # a scope-local tool too: what is hidden is hidden by name, so a local of the own
        # tool's name would vanish from every view the checks read (TF-12 once judged such a
        # local "not visible" on Python 3.10, whose draws named it)
        _refuse_clashes(self._own, [tool])
        self._inner.register_tool(tool, agent)

    def view(self, agent: str | None = None) -> list[Any]:
        entries: list[Any] = self._hidden("view", self._inner.view(agent))
        return entries

    def tool_schemas(self, agent: str) -> list[Any]:
        schemas: list[Any] = self._hidden("tool_schemas", self._inner.tool_schemas(agent))
        return schemas

    def sdk_bindings(self, agent: str) -> list[str]:
        names: list[str] = self._hidden("sdk_bindings", self._inner.sdk_bindings(agent))
        return names

    def events(self) -> list[Event]:
        events: list[Event] = self._hidden("events", self._inner.events())
        return events

    def observe(self) -> Observation:
        seen: Observation = self._hidden("observe", self._inner.observe())
        return seen

    def batch(self, calls: Sequence[tuple[str, dict[str, Any]]]
              ) -> list[tuple[Any, Any]] | None:
        """The inner deployment's batch, each read's answer hidden as it would be alone; None
        where it has none (the calls are then made one by one, through this deployment)."""
        inner = getattr(self._inner, "batch", None)
        outcomes = inner(calls) if callable(inner) else None
        if outcomes is None:
            return None
        return [(self._hidden(name, result) if error is None else result, error)
                for (name, _), (result, error) in zip(calls, outcomes, strict=True)]

    def _hidden(self, operation: str, result: Any) -> Any:
        """``result`` of ``operation`` with the own tools left out (other operations' as
        given)."""
        own = self._own
        if operation in ("view", "tool_schemas"):
            return [e for e in result if e.name not in own]
        if operation == "sdk_bindings":
            return [n for n in result if n not in own]
        if operation == "events":
            return [_without(own, e) for e in result]
        if operation == "observe":
            return result.model_copy(update={"events": [_without(own, e)
                                                        for e in result.events]})
        return result


def _without(own: frozenset[str], event: Event) -> Event:
    """``event`` with the own tools left out of a published snapshot's view."""
    snapshot = event.data.get("snapshot")
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("view"), list):
        return event
    view = [n for n in snapshot["view"] if n not in own]
    return event.model_copy(update={"data": {**event.data, "snapshot": {**snapshot, "view": view}}})
