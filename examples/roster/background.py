"""The roster with background delegation: ``delegate`` takes ``background: true`` and returns at
once with the child's agent id while the child runs on (docs/promises.md, "Background
delegation"). ``python:examples.roster.background:make_target``.

The reference runtime's start request has no background mode, so the plugin offers it: the
child's run goes to a thread of its own; the deployment waits for those threads when it closes.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from subagent_tck import reference as ref
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.transports.builtin import ReferenceDeployment

from .delegate import RosterDelegate
from .roster import Roster
from .target import RosterTarget

#: How long closing a deployment waits for a background child still running.
JOIN_SECONDS = 10.0


class BackgroundDelegate(RosterDelegate):
    def __init__(self, roster: Roster, mode: Any = "strict") -> None:
        super().__init__(roster, mode)
        self.threads: list[threading.Thread] = []

    def parameters(self) -> dict[str, Any]:
        schema = super().parameters()
        schema["properties"]["background"] = {
            "type": "boolean", "description": "Run the child in the background: the call "
            "returns at once with the child's agent id."}
        return schema

    def body(self, arguments: Mapping[str, Any], context: ref.ExecutionContext) -> Any:
        if arguments.get("background") is not True:
            return super().body({k: v for k, v in arguments.items() if k != "background"},
                                context)
        role = self.roster.role(arguments.get("role"))
        task = arguments.get("task")
        if role is None or not isinstance(task, str) or not task.strip():
            return super().body(arguments, context)  # the same errors as a foreground call
        run = context.host.start(context.agent, self.request_for(role, task))

        def work() -> None:
            try:
                run.result()
            finally:
                run.dispose()

        thread = threading.Thread(target=work, name=f"roster-{role.id}", daemon=True)
        self.threads.append(thread)
        thread.start()
        return {"role": role.id, "tier": role.tier, "background": True, "agent": run.agent.id}


class BackgroundRosterTarget(RosterTarget):
    def __init__(self) -> None:
        self.delegates: list[BackgroundDelegate] = []
        super().__init__(self._new, name="reference+roster+background")

    def _new(self) -> BackgroundDelegate:
        delegate = BackgroundDelegate(Roster(), "strict")
        self.delegates.append(delegate)
        return delegate

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> ReferenceDeployment:
        deployment = super().deploy(config, gateway)
        delegate = self.delegates[-1]
        close = deployment.close

        def close_after_children() -> None:
            for thread in delegate.threads:
                thread.join(JOIN_SECONDS)
            close()

        deployment.close = close_after_children  # type: ignore[method-assign]
        return deployment


def make_target() -> BackgroundRosterTarget:
    return BackgroundRosterTarget()
