"""Where several faults apply, the fuzz expects the code the rules fix (spec/faults.py): a
target whose gates run in the wrong order diverges at the step that shows it, under the rule
of the fault it should have met first, while the reference keeps lockstep."""

from __future__ import annotations

from typing import Any

import pytest

from subagent_tck.conformance.core.target import Target
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Step
from subagent_tck.reference import Agent, Host, Resume
from subagent_tck.reference.descriptor import Descriptor
from subagent_tck.reference.subagent_tool import COMPONENT
from subagent_tck.spec import SUBAGENT_TOOL_NAME, Capability, ErrorCode, TckError

from .conftest import reference_with, run_steps


class _GateBeforeDepthResume(Resume):
    """Gates the descriptor's controls before it reads the stored depth."""

    def run(self) -> Agent:
        header = self.host.store.header(self.session)
        if header.descriptor is not None:
            self.gate(Descriptor.from_json(header.descriptor, self.session))
        return super().run()


class _GateBeforeDepthHost(Host):
    resume_class = _GateBeforeDepthResume


class _MountBeforeNameHost(Host):
    """Mounts a load (and meets its gate) before it looks at the name being taken."""

    def load_subagent_tool(self, config: Any) -> None:
        name = config.get("toolName", SUBAGENT_TOOL_NAME)
        provider = self.providers.get(config.get("provider"))
        if (provider is not None and isinstance(config.get("maxDepth"), (int, float))
                and not provider.supports(Capability.DEPTH_LIMIT)
                and name in self.component_state.get(COMPONENT, {})):
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "no depthLimit to mount on")
        super().load_subagent_tool(config)


#: the classic words, with the tools the preset ``reviewer`` allows registered
SETUP = Setup(tools=("read", "search"))


def _steps(*items: tuple[str, dict[str, Any]]) -> list[Step]:
    return [Step(op=op, args=args) for op, args in items]


#: name -> (host class, steps, the step that diverges, its rule)
CASES: dict[str, tuple[type[Host], list[Step], int, str]] = {
    # the session does not load (DE-06): its descriptor asks for nothing yet
    "a resume gating its descriptor before reading its depth": (_GateBeforeDepthHost, _steps(
        ("start", {"parent": "root", "provider": "spawn", "controls": {"preset": "reviewer"},
                   "label": "c1"}),
        ("rebind", {"session": "c1", "provider": "acp", "label": "r1"}),
        ("plant", {"session": "c1", "depth": {"json": "-1"}, "label": "r2"}),
    ), 3, "DE-06"),
    # a taken name fails at load (ST-04), which comes before any mount (ST-05)
    "a load mounted before its name was checked": (_MountBeforeNameHost, _steps(
        ("load_tool", {"name": "subagent", "provider": "spawn"}),
        ("load_tool", {"name": "subagent", "provider": "acp", "max_depth": {"json": "2"}}),
    ), 2, "ST-04"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_reference_keeps_lockstep(reference: Target, name: str) -> None:
    _, sequence, _, _ = CASES[name]
    assert run_steps(reference, SETUP, sequence) is None


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_target_whose_gates_run_in_the_wrong_order_diverges_under_the_first_rule(
    name: str,
) -> None:
    host, sequence, at, rule = CASES[name]
    with reference_with(host, "wrong-order") as target:
        divergence = run_steps(target, SETUP, sequence)
    assert divergence is not None, name
    assert (divergence.finding.step, divergence.finding.rule) == (at, rule), str(divergence)
