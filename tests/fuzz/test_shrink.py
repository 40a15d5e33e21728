"""Shrinking a divergence on its decoded steps: short, still failing, the rule diagnosed anew."""

from __future__ import annotations

from pathlib import Path

from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.shrink import shrink
from subagent_tck.fuzz.step import Divergence, Step
from subagent_tck.spec import PresentationMode

from .conftest import run_steps, zoo_module


def diverge(target: object, setup: Setup, steps: list[Step]) -> Divergence:
    found = run_steps(target, setup, steps)  # type: ignore[arg-type]
    if found is None:
        raise AssertionError("the sequence shows no divergence")
    return found


def test_irrelevant_steps_tools_and_mode_are_shrunk_away(at_root: Path) -> None:
    target = zoo_module("case_insensitive_allow").provider()
    noise = [
        Step(op="register_global", args={"name": "write"}),
        Step(op="create_agent", args={"header": {"json": "1"}, "runtime": None, "label": "a1"}),
        Step(op="view", args={"agent": "a1"}),
        Step(op="start", args={"parent": "a1", "provider": "spawn", "controls": {},
                               "label": "c1"}),
        Step(op="set_mode", args={"agent": "root", "mode": "native"}),
    ]
    steps = [*noise, Step(op="register_global", args={"name": "Read"}),
             Step(op="restrict", args={"agent": "root", "value": {"allow": ["read", "web"]},
                                       "label": "root.r1"})]
    setup = Setup(mode=PresentationMode.BOTH, tools=("read", "web", "search"))
    found = diverge(target, setup, steps)
    shrunk, runs = shrink(target, found, seconds=30)
    assert shrunk.finding.rule == "TF-01" and runs > 0
    # the registration became one of the deployment's own tools; "web" left the allow list
    assert [(s.op, s.args.get("value")) for s in shrunk.steps] == [
        ("restrict", {"allow": ["read"]})]
    assert sorted(shrunk.setup.tools) == ["Read", "read"]
    assert shrunk.setup.mode is PresentationMode.NATIVE


def test_a_creation_step_is_deleted_and_later_steps_use_its_parent(at_root: Path) -> None:
    target = zoo_module("resume_rederives_depth").provider()
    steps = [
        Step(op="start", args={"parent": "root", "provider": "spawn", "controls": {},
                               "label": "c1"}),
        Step(op="start", args={"parent": "c1", "provider": "fork", "controls": {},
                               "label": "c2"}),
        Step(op="plant", args={"session": "c2", "depth": {"json": "7"}, "label": "r1"}),
    ]
    shrunk, _ = shrink(target, diverge(target, Setup(), steps), seconds=30)
    assert shrunk.finding.rule == "DE-09"
    start, plant = shrunk.steps  # one start from the root, and the plant of its session
    assert (start.op, start.args["parent"]) == ("start", "root")
    assert (plant.op, plant.args["session"]) == ("plant", start.args["label"])
