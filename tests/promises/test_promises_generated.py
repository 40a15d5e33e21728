"""Generated rosters: any tool names, capability sets and personas (Hypothesis). The kit's
verdict follows the roster, never a fixed vocabulary: a faithful roster keeps every promise;
granting one role one tool beyond its promise breaks exactly that role's promise."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from examples.roster.delegate import RosterDelegate
from examples.roster.roster import Role, Roster
from examples.roster.target import RosterTarget
from subagent_tck.conformance.core.promises_file import (
    Deployment,
    PersonaPromise,
    Promise,
    PromisesFile,
    ToolsPromise,
    Trigger,
)
from subagent_tck.conformance.engine.promises import check_all

RESERVED = {"delegate", "run_code", "structured_output"}
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(lambda n: n not in RESERVED)
PROSE = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz ABCDEFXYZ.,;:!?-'0123456789"),
                min_size=8, max_size=60).map(str.strip).filter(lambda t: len(t) >= 8)


@st.composite
def rosters(draw: st.DrawFn) -> tuple[Roster, list[str], str]:
    tools = draw(st.lists(NAMES, min_size=2, max_size=7, unique=True))
    count = draw(st.integers(min_value=1, max_value=3))
    ids = draw(st.lists(NAMES, min_size=count, max_size=count, unique=True))
    capabilities, roles = {}, []
    for i, role_id in enumerate(ids):
        allowed = draw(st.lists(st.sampled_from(tools), unique=True, max_size=len(tools) - 1))
        capabilities[f"cap{i}"] = tuple(allowed)
        prompt = f"You are {role_id}. " + draw(PROSE)
        roles.append(Role(role_id, "build", f"cap{i}", "standard", prompt))
    parent = "Parent " + draw(PROSE)
    return Roster(roles=tuple(roles), capabilities=capabilities), tools, parent


def _file(roster: Roster, tools: list[str], parent: str, task: str) -> PromisesFile:
    return PromisesFile(
        deployment=Deployment(persona=parent, tools=list(tools), plugin_tools=["delegate"]),
        promise=[Promise(id=r.id, trigger=Trigger(tool="delegate",
                                                  arguments={"role": r.id, "task": task}),
                         persona=PersonaPromise(contains=[r.prompt]),
                         tools=ToolsPromise(exactly=list(roster.capabilities[r.capability])))
                 for r in roster.roles],
    )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rosters(), PROSE)
def test_a_faithful_generated_roster_keeps_every_promise(
    drawn: tuple[Roster, list[str], str], task: str
) -> None:
    roster, tools, parent = drawn
    report = check_all(RosterTarget(lambda: RosterDelegate(roster, "advisory")),
                       _file(roster, tools, parent, task))
    assert report.kept, [i for i in report.items if i.status != "kept"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rosters(), PROSE, st.data())
def test_one_extra_tool_breaks_exactly_that_roles_promise(
    drawn: tuple[Roster, list[str], str], task: str, data: st.DataObject
) -> None:
    roster, tools, parent = drawn
    victim = data.draw(st.sampled_from(roster.roles))
    granted = roster.capabilities[victim.capability]
    extra = data.draw(st.sampled_from([t for t in tools if t not in granted]))
    widened = dataclasses.replace(roster, capabilities={
        **roster.capabilities, victim.capability: (*granted, extra)})
    promised = _file(roster, tools, parent, task)
    report = check_all(RosterTarget(lambda: RosterDelegate(widened, "advisory")), promised)
    broken = {(i.promise, i.aspect) for i in report.items if i.status != "kept"}
    assert broken == {(victim.id, "tools"), (victim.id, "refuses:calls")}
    tools_item = next(i for i in report.items if (i.promise, i.aspect) == (victim.id, "tools"))
    assert extra in tools_item.observed
