"""A target made of another target with something changed: its info, or its deployments
with some methods changed. The broken or older targets of the tests (a crash in one
operation, a driver protocol without one, a fault that does not recur, a connection lost at a
deployment), built on the reference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    ModelRequest,
    StartRequest,
    TargetInfo,
    ToolSpec,
)
from subagent_tck.conformance.transports.builtin import reference_target


class Changed:
    """The deployment ``inner`` with the methods ``changed`` names replaced (a name given
    None is a method it lacks, as a target of an older driver protocol lacks an operation)."""

    def __init__(self, inner: Any, **changed: Callable[..., Any] | None) -> None:
        self._inner, self._changed = inner, changed

    def __getattr__(self, name: str) -> Any:
        if name not in self._changed:
            return getattr(self._inner, name)
        method = self._changed[name]
        if method is None:
            raise AttributeError(name)
        return method


class Wrapped:
    """The target ``inner`` with each deployment made ``wrap(deployment)`` (as it is, by
    default: a subclass changes ``info`` or ``deploy``)."""

    def __init__(self, inner: Any, wrap: Callable[[Any], Any] = lambda deployment: deployment,
                 ) -> None:
        self.inner, self._wrap = inner, wrap

    def info(self) -> TargetInfo:
        info: TargetInfo = self.inner.info()
        return info

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        return self._wrap(self.inner.deploy(config, gateway))

    def close(self) -> None:
        self.inner.close()


def patched(inner: Any, name: str, replacement: Callable[[Any], Any]) -> Wrapped:
    """``inner`` with the method ``name`` of every deployment replaced by
    ``replacement(deployment)``, set on the deployment itself (its own calls reach it too)."""

    def patch(deployment: Any) -> Any:
        setattr(deployment, name, replacement(deployment))
        return deployment

    return Wrapped(inner, patch)


#: The text :class:`OwnTool` gives a child at its cap where it is told (ST-08).
AT_CAP_NOTICE = "You are at your delegation cap: do this work directly."


class OwnTool(Wrapped):
    """The reference without its ``subagent`` tool component, its provider ``spawn`` naming
    ``hand_off`` as its own delegation tool (``declared``), a runtime whose starts are calls of
    that tool, offered to every agent (``every``) or to the root alone (a runtime that gives a
    subagent no delegation tool at any depth).

    - ``at_cap``: the tool withheld from a child its start's maxDepth puts at its cap, as Claude
      Code does (a start with maxDepth 1 gets the filter ``{"deny": ["hand_off"]}``, which only
      the request-controls edition takes on a start);
    - ``setting``: a start without maxDepth capped by the host depth setting as it stands at
      the start (``"live"``), as it stood when the deployment was made (``"frozen"``), at a
      number whatever the setting (an int), or not at all (None: unbounded, the reference's
      direct start);
    - ``notice``: a child at its cap told to work directly (:data:`AT_CAP_NOTICE`, its persona:
      request-controls only) while the runtime context is on, or always (``"always"``), or
      told again in each later request (``"again"``: the notice appended to its context once
      per request it sent before);
    - ``filtered``: a child's filter decides the tool like any global tool (True), or the tool
      is offered whatever the filter (False: taken out of every deny list, put in every allow
      list), or a deny entry naming it is ignored (``"allow-only"``).
    """

    def __init__(self, every: bool = True, declared: bool = True, at_cap: bool = False,
                 setting: str | int | None = None, notice: bool | str = False,
                 filtered: bool | str = True) -> None:
        super().__init__(reference_target(), self._capped)
        self.every, self.declared, self.at_cap = every, declared, at_cap
        self.setting, self.notice, self.filtered = setting, notice, filtered

    def _unfiltered(self, value: Any) -> Any:
        """A tool filter as this runtime (``filtered``) applies it to its own tool."""
        if self.filtered is True or not isinstance(value, dict):
            return value
        out = dict(value)
        if isinstance(out.get("deny"), list):
            out["deny"] = [n for n in out["deny"] if n != "hand_off"]
        if self.filtered is False and isinstance(out.get("allow"), list) \
                and "hand_off" not in out["allow"]:
            out["allow"] = [*out["allow"], "hand_off"]
        return out

    def _capped(self, deployment: Any) -> Any:
        start, set_depth, set_context = (deployment.start, deployment.set_host_depth,
                                         deployment.set_runtime_context)
        state: dict[str, Any] = {"depth": 1, "made": 1, "context": True}

        def capped(request: StartRequest) -> Any:
            update: dict[str, Any] = {}
            if request.toolFilter is not None and self.filtered is not True:
                update["toolFilter"] = self._unfiltered(request.toolFilter)
            if self.at_cap and request.maxDepth == 1:
                update["toolFilter"] = {"deny": ["hand_off"]}
            if self.setting and "maxDepth" not in request.model_fields_set:
                update["maxDepth"] = (self.setting if isinstance(self.setting, int)
                                      else state["depth" if self.setting == "live" else "made"])
            if self.notice and request.maxDepth == 1 and (state["context"]
                                                          or self.notice == "always"):
                update["persona"] = AT_CAP_NOTICE
            return start(request.model_copy(update=update) if update else request)

        def setting(value: Any) -> None:
            set_depth(value)
            state["depth"] = value

        def context(enabled: bool) -> None:
            set_context(enabled)
            state["context"] = enabled

        deployment.start, deployment.set_host_depth = capped, setting
        deployment.set_runtime_context = context
        return deployment

    def info(self) -> TargetInfo:
        info = self.inner.info()
        return info.model_copy(update={"components": [], "providers": [
            p.model_copy(update={"delegationTool": "hand_off" if self.declared else None})
            if p.name == "spawn" else p for p in info.providers]})

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        if self.notice == "again":
            gateway = _Repeating(gateway)  # type: ignore[assignment]
        if self.filtered is not True:
            config = config.model_copy(update={"presets": [
                p.model_copy(update={"toolFilter": self._unfiltered(p.toolFilter)})
                for p in config.presets]})
        tool = ToolSpec(name="hand_off", description="starts a child")
        if self.every:  # a global from the start: a root preset's filter may name it
            config = config.model_copy(update={"tools": [*config.tools, tool]})
        deployment = self._wrap(self.inner.deploy(config, gateway))
        if not self.every:
            deployment.register_tool(tool, deployment.root().agent)
        return deployment


class _Repeating:
    """The gateway ``inner`` with :data:`AT_CAP_NOTICE` appended again to each later request of
    an agent told it (a notice not kept once per cap and depth: docs/rules.md#ST-08)."""

    def __init__(self, inner: Gateway) -> None:
        self._inner = inner
        self._sent: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def complete(self, request: ModelRequest) -> Any:
        if AT_CAP_NOTICE in request.system:
            before = self._sent.get(request.agent, 0)
            self._sent[request.agent] = before + 1
            request = request.model_copy(update={
                "context": [*request.context, *[AT_CAP_NOTICE] * before]})
        return self._inner.complete(request)
