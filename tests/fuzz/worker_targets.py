"""Targets that break a HypoFuzz worker (tests/fuzz/test_hypofuzz.py): the reference, except
that its third deployment kills the worker process (``dies``), never returns (``hangs``) or
times out as an HTTP target that stopped answering does (``times_out``)."""

from __future__ import annotations

import os
import threading
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.spec import ErrorCode, TckError

#: Deployments a worker makes before its target breaks.
HEALTHY = 2


class _Breaking(ReferenceTarget):
    def __init__(self, how: str) -> None:
        super().__init__(name=f"reference that {how}")
        self.how = how
        self.deployed = 0

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        self.deployed += 1
        if self.deployed > HEALTHY:
            if self.how == "dies":
                os._exit(9)  # the worker process ends without a word
            if self.how == "times out":  # what the HTTP client raises for a silent adapter
                raise TckError(ErrorCode.TIMEOUT, "the target did not answer deploy within 30 s")
            threading.Event().wait()  # never returns: no timeout in-process
        return super().deploy(config, gateway)


def dies() -> ReferenceTarget:
    return _Breaking("dies")


def hangs() -> ReferenceTarget:
    return _Breaking("hangs")


def times_out() -> ReferenceTarget:
    return _Breaking("times out")
