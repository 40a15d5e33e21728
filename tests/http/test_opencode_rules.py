"""A spawn policy as opencode's ``task`` rules (adapters/opencode/opencode_adapter/rules.py),
without opencode: read as opencode 1.18.33 reads them (the last rule whose pattern matches
decides; no match would ask a user), the rules admit exactly the presets the kit's oracle
admits (docs/rules.md#SP-01); which policies make opencode withhold ``task``; and a tool filter
that decides ``task`` itself keeps its say."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from subagent_tck.conformance.engine.checks._names import tool_names
from subagent_tck.conformance.engine.checks.tool_filter import restriction_st
from subagent_tck.spec import admits_preset, parse_policies

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "opencode"))

from opencode_adapter.rules import permission, task_rules, with_policy, withheld


def opencode_reads(rules: dict[str, str], agent: str) -> str:
    """opencode's ``evaluate`` over one agent's rules: the last rule whose pattern is ``*`` or
    the agent's own name (the adapter writes no other pattern), else ``ask``."""
    verdict = "ask"
    for pattern, action in rules.items():
        if pattern in ("*", agent):
            verdict = action
    return verdict


@st.composite
def cases(draw: Any) -> tuple[list[str], dict[str, list[str]]]:
    presets = draw(tool_names(1, 6))
    return presets, draw(restriction_st(presets, empty=True))


@given(cases())
@example((["reviewer", "writer"], {"allow": ["reviewer", "writer"], "deny": ["writer"]}))
@example((["read", "Read"], {"allow": ["Read"]}))
@example((["a", "b"], {"allow": []}))
@example((["a", "b"], {"deny": []}))
def test_the_task_rules_admit_exactly_the_presets_the_policy_admits(
        case: tuple[list[str], dict[str, list[str]]]) -> None:
    presets, policy = case
    agents = {name: f"tck-preset-{i}-x" for i, name in enumerate(presets)}
    rules = task_rules(policy, agents)
    assert next(iter(rules)) == "*"  # a catch-all first: opencode never asks a user
    policies = parse_policies([policy], presets)
    for name in presets:
        expected = "allow" if admits_preset(policies, name) else "deny"
        assert opencode_reads(rules, agents[name]) == expected, (name, rules)


def test_a_name_that_is_no_preset_is_written_as_a_pattern_opencode_never_checks() -> None:
    rules = task_rules({"deny": ["editor"]}, {"writer": "tck-preset-0-writer"})
    assert rules == {"*": "allow", "editor": "deny"}


def test_only_an_empty_allow_list_without_deny_entries_withholds_task() -> None:
    assert withheld(task_rules({"allow": []}, {}))
    assert not withheld(task_rules({"allow": [], "deny": ["a"]}, {}))  # the last names an agent
    assert not withheld(task_rules({"deny": []}, {}))
    assert not withheld(task_rules({"allow": ["a"]}, {}))


def test_a_filter_that_decides_task_itself_keeps_it_and_the_others_get_the_policy() -> None:
    policy = {"deny": ["writer"]}
    agents = {"writer": "tck-preset-0-writer"}
    denied = permission({"deny": ["task"]})
    assert with_policy(denied, policy, agents) == denied  # no delegation at all
    narrow = permission({"allow": ["read"]})  # task left out of an allow list
    assert with_policy(narrow, policy, agents) == narrow
    named = with_policy(permission({"allow": ["task"]}), policy, agents)
    assert named["task"] == {"*": "allow", "tck-preset-0-writer": "deny"}
    deny_only = with_policy(permission({"deny": ["read"]}), policy, agents)
    assert list(deny_only) == ["tck_read", "task"]
    assert with_policy(None, policy, agents) == {"task": {"*": "allow",
                                                          "tck-preset-0-writer": "deny"}}
    assert with_policy(None, None, agents) is None
