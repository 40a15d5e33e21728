"""The ``subagent`` tool in the campaign: drawn names, load-time controls, durable depths that
change under the same cap, and children that answer nothing. Each zoo entry below is found by
the step sequence that shows it, with its rule, while the reference keeps lockstep through the
same sequence (and the draws are measured: each partition occurs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.engine.checks._names import is_tool_name
from subagent_tck.fuzz import machine
from subagent_tck.fuzz.campaign import run_campaign
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Step
from subagent_tck.fuzz.strategies import Code, pick_tool_names
from subagent_tck.reference import ChildStart, Host
from subagent_tck.spec import Edition, ErrorCode, PresentationMode, TckError

from .conftest import reference_with, run_steps, zoo_module

REQUEST = Edition.REQUEST_CONTROLS
PTC = PresentationMode.PTC


def steps(*items: tuple[str, dict[str, Any]]) -> list[Step]:
    return [Step(op=op, args=args) for op, args in items]


def _load(name: str = "subagent", **more: Any) -> tuple[str, dict[str, Any]]:
    return ("load_tool", {"name": name, "provider": "spawn", **more})


def _call(**more: Any) -> tuple[str, dict[str, Any]]:
    return ("call_tool", {"agent": "root", "name": "subagent", **more})


#: zoo entry -> (set-up, steps, the step (1-based) that must diverge, the rule it names)
CASES: dict[str, tuple[Setup, list[Step], int, str]] = {
    "tool_names_fold_case": (Setup(), steps(_load(), _load("SUBAGENT")), 2, "ST-04"),
    "tool_empty_persona_dropped": (Setup(REQUEST), steps(
        _load(max_depth="provider-managed", persona=""), _call()), 2, "EN-03"),
    "tool_guard_reads_loaded_depth": (Setup(), steps(
        _load(), ("rewrite", {"session": "root", "depth": {"json": "1"}}), _call()), 3,
        "ST-07"),
    "empty_output_as_error": (Setup(), steps(_load(), _call(reply="empty")), 2, "ST-09"),
    "model_failure_as_answer": (Setup(), steps(_load(), _call(reply="silent")), 2, "ST-09"),
    # a call that must be refused for the tool's own filter ran a child: the controls were
    # never sent (EN-03), not a filter accepted
    "tool_controls_not_forwarded": (Setup(REQUEST), steps(
        _load(max_depth="provider-managed", tool_filter={"allow": ["run_code"]}), _call()),
        2, "EN-03"),
    # the start under a call refused by a default cap no one asked for: the start's rule
    "default_cap_when_omitted": (Setup(), steps(
        ("create_agent", {"header": {"json": "3"}, "runtime": None}),
        _load(max_depth="provider-managed"),
        ("call_tool", {"agent": "a1", "name": "subagent"})), 3, "DE-10"),
    # a call from an agent whose runtime depth is shallower than its header at 2^53-1: a child
    # started from the runtime depth alone is DE-02's, one started at 2^53 DE-08's (the
    # campaign named both DE-02 before the probe compared the child's depth)
    "runtime_overrides_header": (Setup(), steps(
        _load(max_depth=None),
        ("create_agent", {"header": {"json": "9007199254740991"}, "runtime": {"json": "4"}}),
        ("call_tool", {"agent": "a1", "name": "subagent"})), 3, "DE-02"),
    "no_overflow_check": (Setup(), steps(
        _load(max_depth=None),
        ("create_agent", {"header": {"json": "9007199254740991"}, "runtime": {"json": "4"}}),
        ("call_tool", {"agent": "a1", "name": "subagent"})), 3, "DE-08"),
    # the model's call of a tool on the wire of an agent set to native in a ptc deployment,
    # refused as UNKNOWN_TOOL: TF-12's, not the cap rules' (no child ran)
    "model_calls_checked_in_default_mode": (Setup(mode=PTC), steps(
        _load(), ("set_mode", {"agent": "root", "mode": "native"}), _call()), 3, "TF-12"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_reference_keeps_lockstep_through_each_sequence(reference: Target, name: str) -> None:
    setup, sequence, _, _ = CASES[name]
    divergence = run_steps(reference, setup, sequence)
    assert divergence is None, str(divergence)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_zoo_entry_diverges_at_the_step_that_shows_it_and_names_its_rule(
    at_root: Any, name: str,
) -> None:
    setup, sequence, at, rule = CASES[name]
    module = zoo_module(name)
    target = module.provider()
    try:
        divergence = run_steps(target, setup, sequence)
    finally:
        target.close()
    assert divergence is not None, f"{name}: no divergence"
    assert (divergence.finding.step, divergence.finding.rule) == (at, rule), str(divergence)
    assert rule == module.BREAKS


# --- what the campaign draws for the tool: each partition occurs ------------------------------

def _tool_names(data: bytes) -> tuple[str, ...]:
    return pick_tool_names(Code(data), avoid={"read", "Read"})


def test_drawn_tool_names_stay_in_the_grammar_and_avoid_the_registered_names() -> None:
    @given(st.binary(min_size=0, max_size=32))
    def drawn(data: bytes) -> None:
        names = _tool_names(data)
        assert len(set(names)) == len(names) == 3
        assert all(n == "subagent" or is_tool_name(n) for n in names)
        assert not {"read", "Read"} & set(names)

    drawn()


@pytest.mark.parametrize(("what", "holds"), [
    ("two names that differ only in case", lambda names: any(
        a != b and a.casefold() == b.casefold() for a in names for b in names)),
    ("the default name", lambda names: "subagent" in names),
    ("a name with a letter outside ASCII", lambda names: any(not n.isascii() for n in names)),
    ("a name of more than 60 characters", lambda names: any(len(n) > 60 for n in names)),
    ("a one-character name", lambda names: any(len(n) == 1 for n in names)),
    ("a name with a hyphen", lambda names: any("-" in n for n in names)),
])
def test_the_drawn_tool_names_reach_every_partition(what: str, holds: Any) -> None:
    found = find(st.binary(min_size=32, max_size=32), lambda d: holds(_tool_names(d)),
                 settings=settings(phases=[Phase.generate], max_examples=2000, database=None))
    assert holds(_tool_names(found)), what


def test_a_short_campaign_draws_every_new_step_of_the_tool(
    reference: Target, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Loads with each control, calls whose child answers each way, and durable depths
    rewritten under live agents, all in 40 deployments of the request-controls edition."""
    seen: list[Step] = []
    teardown = machine.FuzzMachine.teardown

    def keep(self: machine.FuzzMachine) -> None:
        if self.lock is not None:
            seen.extend(self.lock.steps)
        teardown(self)

    monkeypatch.setattr(machine.FuzzMachine, "teardown", keep)
    result = run_campaign(reference, seed=1, max_examples=40, budget_seconds=float("inf"),
                          database_dir=None, output_dir=tmp_path, editions=(REQUEST,))
    assert result.finding is None, result.report()
    loads = [s.args for s in seen if s.op == "load_tool"]
    for control in ("persona", "tool_filter", "agent_options"):
        assert any(control in a for a in loads), control
    assert "" in [a.get("persona") for a in loads]
    replies = {s.args.get("reply", "output") for s in seen if s.op == "call_tool"}
    assert replies == {"output", "empty", "silent", "stall"}
    assert any(s.op == "rewrite" for s in seen)


class _RefusesLiteralBraces(ChildStart):
    """A start that refuses a persona's '{{' nothing closes (the JavaScript implementation's
    reading; the rules leave it to the implementation, docs/rules.md#PE-05)."""

    def compose(self) -> None:
        super().compose()
        persona = self.asked["persona"]
        if isinstance(persona, str) and "{{" in persona and "}}" not in persona:
            raise TckError(ErrorCode.INVALID_TEMPLATE, "an unclosed '{{' in the persona")


class _RefusesLiteralBracesHost(Host):
    child_start_class = _RefusesLiteralBraces


def test_a_tool_whose_persona_the_implementation_refuses_as_grammar_errs_without_a_child() -> None:
    """Found by the campaign at seed 7 against the JavaScript implementation (request-controls):
    a tool configured with the persona 'Broken {{' gets an errored result and starts no child,
    which is as right as a child composed with it as prose."""
    sequence = steps(_load(provider="fork", max_depth={"json": "2"}, persona="Broken {{"),
                     _call(stop="max-tokens"))
    with reference_with(_RefusesLiteralBracesHost, "literal-braces-refused") as target:
        assert run_steps(target, Setup(REQUEST), sequence) is None
