"""A target made of another target with something changed: its info, or its deployments
with some methods changed. The broken or older targets of the tests (a crash in one
operation, a driver protocol without one, a fault that does not recur, a connection lost at a
deployment), built on the reference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig, TargetInfo


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
