"""Spawn policies installed on a live scope, and disposed again (docs/rules.md#SP-01).

A policy is validated against the deployment's presets when installed (``INVALID_SPAWN_POLICY``
listing every unknown name, nothing installed); once installed, every later start of a preset
from that scope is judged by :func:`subagent_tck.spec.decide_start` with the scope's policies
(:meth:`.model.DeploymentModel.start_state`): ``SPAWN_DENIED`` and nothing created where they
refuse it. Disposing lifts exactly that policy; disposing again is harmless.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from .lockstep import Lockstep


def install_policy(lock: Lockstep, agent: str, value: Any, label: str | None = None) -> None:
    model = lock.agent(agent)
    expect, policy, offending = lock.model.expect_spawn_policy(value)
    before = lock.snapshot_later() if expect.codes else None
    if expect.codes:  # the snapshot a refusal is compared with, carried with the change
        lock.expect([("observe", {})])
    target = lock.agent_id(agent)
    sent = copy.deepcopy(value)
    handle, error = lock.call(
        "install_spawn_policy", lambda: lock.deployment.install_spawn_policy(target, sent))
    if lock.check_outcome("spawn-policy", expect.codes, expect.may_accept, error, "SP-01",
                          expect.reason):
        assert policy is not None
        label = label or lock.model.new_label(f"{agent}.p")
        lock.policy_handles[label] = str(handle)
        model.policies[label] = policy
        model.policies_issued.add(label)
        return
    assert error is not None and before is not None
    listed = error.details.get("offending")
    names = [str(n) for n in listed] if isinstance(listed, list) else []
    missing = [n for n in offending if n not in names and not re.search(
        rf"(?<![\w-]){re.escape(n)}(?![\w-])", error.message)]
    if missing:
        raise lock.diverge("spawn-policy-offending", f"the refusal does not name {missing}",
                           list(offending), error.to_json(), "SP-01")
    lock.unchanged(before(), "nothing-changed", "SP-01")


def dispose_policy(lock: Lockstep, agent: str, policy: str) -> None:
    model = lock.agent(agent)
    expect = lock.model.expect_dispose_policy(model, policy)
    handle = lock.policy_handles.get(policy, f"never-issued-{policy}")
    target = lock.agent_id(agent)
    _, error = lock.call(
        "dispose_spawn_policy", lambda: lock.deployment.dispose_spawn_policy(target, handle))
    lock.check_outcome("spawn-policy", expect.codes, expect.may_accept, error, "SP-01",
                       expect.reason)
    model.policies.pop(policy, None)
