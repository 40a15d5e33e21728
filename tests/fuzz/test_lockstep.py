"""The lockstep: hand-written step sequences against the reference and against zoo entries.

Each sequence is the shortest one that shows a zoo entry's bug; the lockstep must stop at the
right step and name the rule the entry breaks (the diagnosis of :mod:`subagent_tck.fuzz.rulemap`),
while the reference runs every sequence without a divergence.
"""

from __future__ import annotations

from typing import Any

import pytest
from target_wrappers import Changed, Wrapped

from subagent_tck.conformance.core.protocol import ToolResult
from subagent_tck.conformance.core.target import Target
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Step
from subagent_tck.spec import Edition, ErrorCode, PresentationMode, TckError

from .conftest import run_steps, zoo_module

REQUEST = Edition.REQUEST_CONTROLS
PRESET = Edition.PRESET_COMPOSITION


def steps(*items: tuple[str, dict[str, Any]]) -> list[Step]:
    return [Step(op=op, args=args) for op, args in items]


def depth(text: str) -> dict[str, str]:
    return {"json": text}


#: zoo entry -> (set-up, steps, the step (1-based) that must diverge, the rule it names)
CASES: dict[str, tuple[Setup, list[Step], int, str]] = {
    "case_insensitive_allow": (Setup(PRESET, tools=("read", "Read")), steps(
        ("restrict", {"agent": "root", "value": {"allow": ["read"]}}),
    ), 1, "TF-01"),
    "stale_view_after_dispose": (Setup(), steps(
        ("restrict", {"agent": "root", "value": {"allow": []}}),
        ("dispose", {"agent": "root", "restriction": "root.r1"}),
        ("register_global", {"name": "read"}),
    ), 3, "TF-14"),
    "shadow_restore_resurrects_global": (Setup(tools=("read",)), steps(
        ("register_local", {"agent": "root", "name": "read"}),
        ("unregister_global", {"name": "read"}),
        ("unregister_local", {"agent": "root", "name": "read"}),
    ), 3, "TF-11"),
    "sdk_bindings_cached": (Setup(mode=PresentationMode.PTC), steps(
        ("sdk", {"agent": "root"}),
        ("register_global", {"name": "read"}),
    ), 2, "TF-12"),
    "resume_rederives_depth": (Setup(), steps(
        ("start", {"parent": "root", "provider": "spawn", "controls": {}}),
        ("plant", {"session": "c1", "depth": depth("3")}),
    ), 2, "DE-09"),
    "filter_checked_against_parent_view": (Setup(REQUEST, tools=("read",)), steps(
        ("restrict", {"agent": "root", "value": {"deny": ["read"]}}),
        ("start", {"parent": "root", "provider": "spawn",
                   "controls": {"toolFilter": {"allow": ["read"]}}}),
    ), 2, "TF-08"),
    "no_op_filter_accepted": (Setup(), steps(
        ("restrict", {"agent": "root", "value": {"allow": None, "deny": None}}),
    ), 1, "TF-07"),
    # DSH's reading, found at seed 707196180: the null beside deny: [] hides every global
    "null_list_read_as_empty": (Setup(REQUEST, tools=("repo_chart",)), steps(
        ("restrict", {"agent": "root", "value": {"allow": None, "deny": []}}),
    ), 1, "TF-07"),
    # and as a child's composed filter
    "null_list_read_as_empty#start": (Setup(REQUEST, tools=("read", "write")), steps(
        ("restrict", {"agent": "root", "value": {"allow": ["read", "write"], "deny": None}}),
        ("start", {"parent": "root", "provider": "spawn",
                   "controls": {"toolFilter": {"allow": None, "deny": ["read"]}}}),
    ), 2, "TF-07"),
    "run_code_registrable": (Setup(), steps(("register_global", {"name": "run_code"}),), 1,
                             "TF-06"),
    "dispose_lifts_all": (Setup(tools=("read", "write")), steps(
        ("restrict", {"agent": "root", "value": {"deny": ["read"]}}),
        ("restrict", {"agent": "root", "value": {"deny": ["write"]}}),
        ("dispose", {"agent": "root", "restriction": "root.r1"}),
    ), 3, "TF-14"),
    "stale_allowed_tools": (Setup(tools=("read",)), steps(
        ("restrict", {"agent": "root", "value": {"allow": ["read"]}}),
        ("unregister_global", {"name": "read"}),
    ), 2, "TF-11"),
    "deny_freezes_admitted": (Setup(), steps(
        ("restrict", {"agent": "root", "value": {"deny": []}}),
        ("register_global", {"name": "read"}),
    ), 2, "TF-09"),
    "child_locals_leak_to_parent": (Setup(), steps(
        ("start", {"parent": "root", "provider": "spawn", "controls": {}}),
        ("register_local", {"agent": "c1", "name": "web"}),
    ), 2, "TF-13"),
    "schemas_only_filter": (Setup(tools=("read",)), steps(
        ("restrict", {"agent": "root", "value": {"deny": ["read"]}}),
        ("lookup", {"agent": "root", "name": "read"}),
    ), 2, "TF-12"),
    "runtime_overrides_header": (Setup(), steps(
        ("create_agent", {"header": depth("3"), "runtime": depth("1")}),
        ("start", {"parent": "a1", "provider": "spawn", "controls": {}}),
    ), 2, "DE-02"),
    # the same bug seen in a start's verdict: the cap 3 refuses a child of depth 4, not of 2
    "runtime_overrides_header#cap": (Setup(), steps(
        ("create_agent", {"header": depth("3"), "runtime": depth("1")}),
        ("start", {"parent": "a1", "provider": "spawn", "controls": {"maxDepth": depth("3")}}),
    ), 2, "DE-02"),
    "cap_refuses_equal": (Setup(), steps(
        ("start", {"parent": "root", "provider": "spawn", "controls": {"maxDepth": depth("1")}}),
    ), 1, "DE-03"),
    "session_before_cap_check": (Setup(), steps(
        ("start", {"parent": "root", "provider": "spawn", "controls": {"maxDepth": depth("0")}}),
    ), 1, "DE-04"),
    "resume_forgets_depth": (Setup(), steps(
        ("start", {"parent": "root", "provider": "spawn", "controls": {}}),
        ("resume", {"session": "c1"}),
    ), 2, "DE-09"),
    "abort_not_bridged": (Setup(), steps(
        ("load_tool", {"name": "subagent", "provider": "spawn"}),
        ("call_tool", {"agent": "root", "name": "subagent", "abort": True}),
    ), 2, "ST-09"),
    "notice_on_every_request": (Setup(), steps(
        ("load_tool", {"name": "subagent", "provider": "spawn", "max_depth": depth("1")}),
        ("create_agent", {"header": depth("1"), "runtime": None}),
        ("call_tool", {"agent": "a1", "name": "subagent"}),
    ), 3, "ST-08"),
    "tools_frozen_per_turn": (Setup(tools=("read",)), steps(
        ("start", {"parent": "root", "provider": "spawn", "controls": {},
                   "change": {"unregister": "read"}}),
    ), 1, "FR-05"),
    "request_filter_dropped": (Setup(REQUEST, tools=("read", "write")), steps(
        ("start", {"parent": "root", "provider": "spawn",
                   "controls": {"toolFilter": {"allow": []}}}),
    ), 1, "EN-03"),
    "run_code_reaches_hidden_global": (Setup(mode=PresentationMode.PTC, tools=("read", "web")),
                                       steps(
        ("restrict", {"agent": "root", "value": {"deny": ["web"]}}),
        ("run_code", {"agent": "root", "names": ["read", "web", "ghost"]}),
    ), 2, "TF-12"),
    "run_code_runs_global_under_local": (Setup(mode=PresentationMode.BOTH, tools=("read",)),
                                         steps(
        ("register_local", {"agent": "root", "name": "read"}),
        ("run_code", {"agent": "root", "names": ["read"]}),
    ), 2, "TF-12"),
    # several faults at once: the code the rules fix, not any of them (spec/faults.py)
    "parent_depth_before_gate": (Setup(REQUEST), steps(
        ("create_agent", {"header": depth("9007199254740991"), "runtime": None}),
        ("start", {"parent": "a1", "provider": "acp", "controls": {"persona": "Hi."}}),
    ), 2, "CA-01"),
    "template_checked_before_depth": (Setup(), steps(
        ("start", {"parent": "root", "provider": "spawn",
                   "controls": {"maxDepth": depth("0"), "outputSchema": {"type": "string"}}}),
    ), 1, "DE-04"),
    "filter_checked_before_gate": (Setup(REQUEST, tools=("read",)), steps(
        ("start", {"parent": "root", "provider": "acp",
                   "controls": {"toolFilter": {"allow": ["ghost"]}}}),
    ), 1, "CA-01"),
    "no_overflow_check": (Setup(), steps(
        ("create_agent", {"header": depth("9007199254740991"), "runtime": None}),
        ("start", {"parent": "a1", "provider": "spawn", "controls": {}}),
    ), 2, "DE-08"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_reference_runs_every_sequence_without_a_divergence(
    reference: Target, name: str
) -> None:
    setup, sequence, _, _ = CASES[name]
    assert run_steps(reference, setup, sequence) is None


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_broken_target_diverges_at_the_step_that_shows_its_bug_and_names_its_rule(
    at_root: object, name: str
) -> None:
    setup, sequence, at, rule = CASES[name]
    module = zoo_module(name.split("#")[0])
    assert rule == module.BREAKS
    divergence = run_steps(module.provider(), setup, sequence)
    assert divergence is not None, f"{name}: no divergence"
    assert (divergence.finding.step, divergence.finding.rule) == (at, rule), divergence.finding


def test_a_long_mixed_sequence_on_the_reference_stays_in_lockstep(reference: Target) -> None:
    sequence = steps(
        ("register_global", {"name": "read"}),
        ("register_global", {"name": "read"}),  # duplicate: DUPLICATE_TOOL
        ("register_global", {"name": "run_code"}),  # reserved: RESERVED_NAME
        ("register_global", {"name": "write"}),
        ("register_global", {"name": "search"}),
        ("restrict", {"agent": "root", "value": {"allow": ["read", "ghost", "run_code"]}}),
        ("restrict", {"agent": "root", "value": {"allow": ["read", "write"], "deny": ["write"]}}),
        ("register_local", {"agent": "root", "name": "write"}),
        ("set_mode", {"agent": "root", "mode": "both"}),
        ("execute", {"agent": "root", "name": "write"}),
        ("execute", {"agent": "root", "name": "search"}),
        ("lookup", {"agent": "root", "name": "run_code"}),
        ("dispose", {"agent": "root", "restriction": "root.r1"}),
        ("dispose", {"agent": "root", "restriction": "root.r1"}),
        ("dispose", {"agent": "root", "restriction": "root.forged"}),
        ("start", {"parent": "root", "provider": "spawn",
                   "controls": {"preset": "reviewer", "maxDepth": depth("1e0")}}),
        ("start", {"parent": "root", "provider": "acp", "controls": {"maxDepth": depth("-0")}}),
        ("start", {"parent": "root", "provider": "nowhere", "controls": {}}),
        ("start", {"parent": "root", "provider": "spawn", "controls": {"persona": "x"}}),
        ("start", {"parent": "c1", "provider": "fork", "controls": {"maxDepth": depth("2")}}),
        ("start", {"parent": "c1", "provider": "fork", "controls": {"maxDepth": depth("1")}}),
        ("prompt", {"agent": "c1"}),
        ("plant", {"session": "c1", "depth": depth("NaN")}),
        ("plant", {"session": "c1", "depth": depth("4")}),
        ("start", {"parent": "r1", "provider": "spawn", "controls": {"maxDepth": depth("5")}}),
        ("create_agent", {"header": depth("true"), "runtime": None}),
        ("create_agent", {"header": depth("1"), "runtime": depth("1.5")}),
        ("start", {"parent": "a1", "provider": "spawn", "controls": {}}),
        ("headers", {}),
        ("view", {"agent": None}),
        ("sdk", {"agent": "c3"}),
    )
    assert run_steps(reference, Setup(), sequence) is None


@pytest.mark.parametrize("bad", [("teleport", {}), ("view", {"agent": "a9"})])
def test_a_step_no_lockstep_can_run_is_a_usage_error(
    reference: Target, bad: tuple[str, dict[str, Any]]
) -> None:
    with pytest.raises(TckError) as raised:
        run_steps(reference, Setup(), steps(bad))
    assert raised.value.code is ErrorCode.USAGE


def test_a_child_whose_turn_changed_the_registry_can_call_a_subagent_tool_later(
    reference: Target,
) -> None:
    # the gateway bound the child to its mid-turn script: a later turn must be scripted there
    sequence = steps(
        ("load_tool", {"name": "subagent", "provider": "spawn", "max_depth": None}),
        ("start", {"parent": "root", "provider": "fork", "controls": {},
                   "change": {"register": "web"}}),
        ("call_tool", {"agent": "c1", "name": "subagent", "stop": "completed"}),
        ("run_code", {"agent": "c1", "names": ["web", "subagent", "run_code"]}),
    )
    assert run_steps(reference, Setup(), sequence) is None


def test_a_target_without_the_run_code_operation_is_not_judged_by_the_fuzzers_programs(
    reference: Target,
) -> None:
    # the fixed check tool-filter-run-code-reach reports such a target's TF-12 as an error
    sequence = steps(
        ("restrict", {"agent": "root", "value": {"deny": ["web"]}}),
        ("run_code", {"agent": "root", "names": ["read", "web"]}),
        ("run_code", {"agent": "root", "names": ["web"]}),
    )
    setup = Setup(mode=PresentationMode.PTC, tools=("read", "web"))
    # the reference behind a driver protocol 1.0 adapter: no run-code operation
    older = Wrapped(reference, lambda deployment: Changed(deployment, run_code=None))
    assert run_steps(older, setup, sequence) is None  # type: ignore[arg-type]
    # and the same programs do judge a target that has it
    broken = zoo_module("run_code_reaches_hidden_global").provider()
    divergence = run_steps(broken, setup, sequence)
    assert divergence is not None and divergence.finding.rule == "TF-12"


def _code_mode(deployment: Any, *, runs: int) -> Changed:
    """``deployment`` with DSH's code-mode collapse: in ptc mode the host's direct call of any
    tool but run_code is UNKNOWN_TOOL (``runs`` 0), or runs the tool ``runs`` times."""
    ptc: set[str] = set()

    def set_mode(agent: str, mode: PresentationMode) -> None:
        deployment.set_mode(agent, mode)
        (ptc.add if mode is PresentationMode.PTC else ptc.discard)(agent)

    def execute(agent: str, name: str, arguments: dict[str, Any]) -> ToolResult:
        if agent not in ptc or name == "run_code":
            return deployment.execute(agent, name, arguments)  # type: ignore[no-any-return]
        if runs == 0:
            return ToolResult(isError=True, code="UNKNOWN_TOOL", content=f"{name}: code mode")
        return [deployment.execute(agent, name, arguments) for _ in range(runs)][-1]  # type: ignore[no-any-return]

    return Changed(deployment, set_mode=set_mode, execute=execute)


#: DSH's certify at seed 3 (request-controls): its code mode refuses a direct call of a tool
#: the SDK binds, and the campaign wanted the body run, where TF-12 leaves it open
PTC_DIRECT = (Setup(REQUEST, tools=("LOOKUP_QUILL",)), steps(
    ("set_mode", {"agent": "root", "mode": "ptc"}),
    ("execute", {"agent": "root", "name": "LOOKUP_QUILL"}),
))


def test_executing_a_tool_only_run_code_reaches_may_run_it_or_be_unknown_tool(
    reference: Target,
) -> None:
    setup, sequence = PTC_DIRECT
    assert run_steps(reference, setup, sequence) is None  # runs the body once
    refused = Wrapped(reference, lambda deployment: _code_mode(deployment, runs=0))
    assert run_steps(refused, setup, sequence) is None  # type: ignore[arg-type]


def test_executing_a_tool_only_run_code_reaches_twice_over_is_a_tf_12_divergence(
    reference: Target,
) -> None:
    setup, sequence = PTC_DIRECT
    twice = Wrapped(reference, lambda deployment: _code_mode(deployment, runs=2))
    divergence = run_steps(twice, setup, sequence)  # type: ignore[arg-type]
    assert divergence is not None and divergence.finding.rule == "TF-12", divergence
    assert "only run_code reaches" in divergence.finding.message
