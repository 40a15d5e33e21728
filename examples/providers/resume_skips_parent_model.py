"""A cold-resumed child without a model of its own takes the deployment's model, not its
parent's (breaks MO-02).

A child started without a model runs on its parent's. The descriptor stores no model for it, so
a resume finds the model by walking up the session chain: this host stops at once and takes the
deployment's. A child of the root is none the wiser (its parent's model is the deployment's);
a grandchild under a child on a model of its own names another model after a restart
(docs/rules.md#MO-02: a resumed child keeps the model of its first request).
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host

BREAKS = "MO-02"


class DeploymentModelHost(Host):
    def session_model(self, session: str | None) -> str | None:
        return self.root_model  # the bug: the parent sessions' models are never read


def provider() -> Any:
    return ReferenceTarget(host_class=DeploymentModelHost, name="resume-skips-parent-model")
