"""The fuzzer's spawn-policy and model steps: the reference stays in lockstep, and a target
that breaks SP-01, MO-01 or MO-02 diverges at the step that shows it, naming that rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from subagent_tck.conformance.core.target import Target
from subagent_tck.fuzz.lexicon import CLASSIC
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.rulemap import fault_rule, refusal_rule
from subagent_tck.fuzz.step import Step
from subagent_tck.spec import ErrorCode, Fault, model_problem

from .conftest import run_steps, zoo_module

PRESET = Setup(tools=CLASSIC.tools, lexicon=CLASSIC)


def _start(parent: str, label: str, **controls: object) -> Step:
    return Step(op="start", args={"parent": parent, "provider": "spawn",
                                  "controls": dict(controls), "label": label})


#: Sequences a conforming target runs without a divergence: policies installed, refused and
#: disposed (twice), starts they refuse and admit, a captain (policy, filter, persona, model)
#: whose own policy refuses a start of its child, models by preset, request and inheritance.
REFERENCE_SEQUENCES = [
    [Step(op="install_policy", args={"agent": "root", "value": {"deny": ["reviewer"]},
                                     "label": "root.p1"}),
     _start("root", "c1", preset="reviewer"), _start("root", "c2", preset="plain"),
     Step(op="dispose_policy", args={"agent": "root", "policy": "root.p1"}),
     Step(op="dispose_policy", args={"agent": "root", "policy": "root.p1"}),
     _start("root", "c3", preset="reviewer")],
    [Step(op="install_policy", args={"agent": "root", "value": {"allow": ["Reviewer"]},
                                     "label": "root.p1"}),
     Step(op="install_policy", args={"agent": "root", "value": {"allow": []},
                                     "label": "root.p2"}),
     _start("root", "c1", preset="plain"), _start("root", "c2")],
    [_start("root", "c1", preset="captain"), _start("c1", "c2", preset="reviewer"),
     _start("c1", "c3", preset="mini"), _start("c3", "c4"),
     _start("root", "c5", preset="mini", model="tck-other"), _start("root", "c6", model="")],
]


@pytest.mark.parametrize("steps", REFERENCE_SEQUENCES)
def test_the_reference_runs_policy_and_model_steps_in_lockstep(
    reference: Target, steps: list[Step],
) -> None:
    assert run_steps(reference, PRESET, steps) is None


@pytest.mark.parametrize(("name", "steps", "rule"), [
    ("spawn_policy_names_unchecked",
     [Step(op="install_policy", args={"agent": "root", "value": {"deny": ["REVIEWER"]}})],
     "SP-01"),
    ("spawn_policies_united",
     [Step(op="install_policy", args={"agent": "root", "value": {"allow": ["plain"]}}),
      Step(op="install_policy", args={"agent": "root", "value": {"deny": ["plain"]}}),
      _start("root", "c1", preset="plain")], "SP-01"),
    ("spawn_denied_after_publish",
     [Step(op="install_policy", args={"agent": "root", "value": {"deny": ["plain"]}}),
      _start("root", "c1", preset="plain")], "SP-01"),
    ("child_runs_on_parent_model", [_start("root", "c1", preset="mini")], "MO-01"),
    ("preset_model_beats_request", [_start("root", "c1", preset="mini", model="other")],
     "MO-01"),
    # the request's empty model, no name, lost to the preset's: accepted, so MO-01's
    ("preset_model_beats_request", [_start("root", "c1", preset="mini", model="")], "MO-01"),
])
def test_a_target_that_breaks_a_newer_rule_diverges_and_names_it(
    at_root: Path, name: str, steps: list[Step], rule: str,
) -> None:
    target = zoo_module(name).provider()
    try:
        divergence = run_steps(target, PRESET, steps)
    finally:
        target.close()
    assert divergence is not None, name
    assert divergence.finding.rules[0] == rule, divergence.finding


def test_a_model_refused_or_accepted_wrongly_belongs_to_mo_01() -> None:
    fault = Fault(ErrorCode.INVALID_REQUEST, model_problem(""))
    assert fault_rule(fault, {"model": ""}) == "MO-01"
    assert refusal_rule(ErrorCode.INVALID_REQUEST.value, {"model": "gpt-4o"}, False) == "MO-01"
    assert refusal_rule(ErrorCode.INVALID_REQUEST.value, {}, False) == "FR-03"
