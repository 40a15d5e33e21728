"""A target that answers the same steps differently on a second run (a transient fault) ends
the campaign with an error that says what the first run saw, not only that the runs differed."""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig, ToolSpec
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.fuzz.campaign import run_campaign
from subagent_tck.spec import ErrorCode, TckError


class _OnceFaulty:
    """The reference, but the first global tool registration of the whole campaign fails."""

    def __init__(self) -> None:
        self.inner, self.failed = ReferenceTarget(), False

    def info(self) -> Any:
        return self.inner.info()

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        deployment, outer = self.inner.deploy(config, gateway), self

        class Faulty:
            def __getattr__(self, name: str) -> Any:
                return getattr(deployment, name)

            def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
                if not outer.failed:
                    outer.failed = True
                    raise TckError(ErrorCode.TIMEOUT, "a transient fault of the first run")
                deployment.register_tool(tool, agent)

        return Faulty()

    def close(self) -> None:
        self.inner.close()


def test_a_fault_that_does_not_recur_is_an_error_naming_what_the_first_run_saw(
        tmp_path: Any) -> None:
    target = _OnceFaulty()
    result = run_campaign(target, seed=3, max_examples=60, budget_seconds=60,
                          database_dir=None, output_dir=tmp_path)
    assert target.failed
    assert result.error is not None, result
    assert "answered the same steps differently" in result.error
    assert "a transient fault of the first run" in result.error
