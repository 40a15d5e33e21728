"""Triggers from inside a child (``trigger.via``: a grandchild's promise) and background
delegation (``trigger.background``): kept where the target does them, an error naming why
where it cannot, never a pass (docs/promises.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from examples.roster.background import BackgroundDelegate, BackgroundRosterTarget
from examples.roster.delegate import RosterDelegate
from examples.roster.roster import ROLES, Role, Roster
from examples.roster.target import RosterTarget, make_target
from subagent_tck.conformance.core import promises_file as pf
from subagent_tck.conformance.engine.promises import check_all
from subagent_tck.spec import TckError

ROOT = Path(__file__).resolve().parents[2]
PARENT = "You are the orchestrator of this workspace; you decide who does what."
BY_ID = {r.id: r for r in ROLES}
TOOLS = {r.id: list(Roster().tools_of(r)) for r in ROLES}


class _Lead(RosterDelegate):
    """The roster where the ``lead`` role may delegate once more (``delegate`` allowed, every
    start capped at depth 2): a grandchild can be started. ``extra`` leaks tools to a role."""

    def __init__(self, lead: str, extra: dict[str, list[str]] | None = None) -> None:
        super().__init__(Roster(), "strict")
        self.lead, self.extra = lead, extra or {}

    def request_for(self, role: Role, task: str) -> dict[str, Any]:
        request = super().request_for(role, task)
        allow = request["toolFilter"]["allow"]
        allow += ["delegate"] if role.id == self.lead else self.extra.get(role.id, [])
        request["maxDepth"] = 2
        return request


def _file(promise: str) -> pf.PromisesFile:
    text = (f"version = 1\n[deployment]\npersona = {json.dumps(PARENT)}\n"
            'plugin_tools = ["delegate"]\n'
            'tools = ["read", "grep", "glob", "edit", "write", "bash", "web_fetch"]\n'
            f"[[promise]]\n{promise}")
    return pf.parse(text, "nested.toml")


def _nested(lead: str, role: str) -> pf.PromisesFile:
    return _file(
        f'id = "{lead}-{role}"\n'
        f'trigger = {{ tool = "delegate", arguments = {{ role = "{role}", task = "Go." }}, '
        f'via = [{{ tool = "delegate", arguments = {{ role = "{lead}", task = "Lead." }} }}] }}\n'
        f'persona = {{ contains = [{json.dumps(BY_ID[role].prompt)}] }}\n'
        f"tools = {{ exactly = {json.dumps(TOOLS[role])} }}\n")


LEADS = st.sampled_from([r.id for r in ROLES if r.kind != "batch"])
ROLE_IDS = st.sampled_from([r.id for r in ROLES])


@settings(max_examples=6, deadline=None)
@given(LEADS, ROLE_IDS)
def test_a_grandchilds_promise_is_kept_where_the_child_may_delegate(lead: str, role: str) -> None:
    assume(lead != role)  # a lead's own grandchild would be offered delegate too
    target = RosterTarget(lambda: _Lead(lead))
    report = check_all(target, _nested(lead, role))
    assert report.kept, [i.message for i in report.items if i.status != "kept"]
    trigger = report.items[0]
    assert trigger.aspect == "trigger" and "via[0] child called 'delegate'" in trigger.message
    assert {i.aspect for i in report.items} >= {"persona", "tools", "refuses:delegation"}


@settings(max_examples=4, deadline=None)
@given(LEADS, st.sampled_from([r.id for r in ROLES if "write" not in TOOLS[r.id]]))
def test_a_grandchild_that_gets_more_breaks_its_promise_naming_what_it_got(
    lead: str, role: str
) -> None:
    assume(lead != role)
    target = RosterTarget(lambda: _Lead(lead, extra={role: ["write"]}))
    report = check_all(target, _nested(lead, role))
    tools = next(i for i in report.items if i.aspect == "tools")
    assert tools.status == "broken" and tools.promise == f"{lead}-{role}"
    assert "extra ['write']" in tools.message and "write" in tools.observed


def test_a_trigger_from_a_child_that_cannot_delegate_is_an_error_naming_why() -> None:
    report = check_all(make_target(), _nested("planner", "tester"))
    assert [(i.aspect, i.status) for i in report.items] == [("trigger", "error")]
    item = report.items[0]
    assert "the via[0] child was never offered 'delegate'" in item.message
    assert sorted(item.observed) == sorted(TOOLS["planner"]) and item.exchange


def test_a_grandchild_beyond_the_depth_cap_is_an_error_naming_the_refusal() -> None:
    class _CappedLead(_Lead):
        def request_for(self, role: Role, task: str) -> dict[str, Any]:
            return {**super().request_for(role, task), "maxDepth": 1}

    report = check_all(RosterTarget(lambda: _CappedLead("planner")), _nested("planner", "tester"))
    item = report.items[0]
    assert (item.aspect, item.status) == ("trigger", "error")
    assert "the via[0] child's call of 'delegate' was refused" in item.message
    assert item.observed["isError"] is True


def _background(role: str, wait: float = 2.0) -> pf.PromisesFile:
    return _file(
        f'id = "{role}-background"\n'
        f'trigger = {{ tool = "delegate", arguments = {{ role = "{role}", task = "Go.", '
        f'background = true }}, background = true, wait = {wait} }}\n'
        f'persona = {{ contains = [{json.dumps(BY_ID[role].prompt)}] }}\n'
        f"tools = {{ exactly = {json.dumps(TOOLS[role])} }}\n")


@settings(max_examples=4, deadline=None)
@given(ROLE_IDS)
def test_a_background_child_keeps_its_promise_after_the_parents_turn(role: str) -> None:
    report = check_all(BackgroundRosterTarget(), _background(role))
    assert report.kept, [i.message for i in report.items if i.status != "kept"]
    assert "ran in the background" in report.items[0].message


def test_a_background_trigger_on_a_target_that_runs_it_in_the_foreground_is_an_error() -> None:
    report = check_all(make_target(), _background("planner", wait=0.5))
    assert [(i.aspect, i.status) for i in report.items] == [("trigger", "error")]
    assert "ran its child in the foreground" in report.items[0].message


class _NeverStarts(BackgroundDelegate):
    def body(self, arguments: Any, context: Any) -> Any:
        return {"background": True, "job": "lost"}  # says it started one; starts nothing


def test_a_background_child_that_never_asks_its_model_breaks_persona_and_tools() -> None:
    report = check_all(RosterTarget(lambda: _NeverStarts(Roster())), _background("tester", 0.5))
    status = {i.aspect: i for i in report.items}
    assert status["trigger"].status == "kept"
    for aspect in ("persona", "tools"):
        assert status[aspect].status == "broken"
        assert "never made a model request" in status[aspect].message
    assert not report.kept


def test_an_unknown_tool_in_a_via_step_is_a_usage_error_naming_the_line() -> None:
    text = (f"version = 1\n[deployment]\npersona = {json.dumps(PARENT)}\n"
            'plugin_tools = ["delegate"]\ntools = ["read"]\n[[promise]]\nid = "x"\n'
            'trigger = { tool = "delegate", via = [{ tool = "delegatte" }] }\n')
    with pytest.raises(TckError) as caught:
        pf.parse(text, "v.toml")
    assert "v.toml:8" in caught.value.message and "unknown tool 'delegatte'" in caught.value.message
