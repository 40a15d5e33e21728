"""The reference runtime with the roster loaded: ``python:examples.roster.target:make_target``."""

from __future__ import annotations

from collections.abc import Callable

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget

from .delegate import RosterDelegate
from .roster import Roster


class RosterTarget(ReferenceTarget):
    """Every deployment gets the roster's ``delegate`` tool as a global tool."""

    def __init__(self, delegate: Callable[[], RosterDelegate], name: str = "reference+roster"):
        super().__init__(name=name)
        self._delegate = delegate

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> ReferenceDeployment:
        deployment = super().deploy(config, gateway)
        try:
            self._delegate().install(deployment.host)
        except BaseException:
            deployment.close()
            raise
        return deployment


def make_target() -> RosterTarget:
    return RosterTarget(lambda: RosterDelegate(Roster(), "strict"))
