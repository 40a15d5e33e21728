"""The depth table of docs/rules.md (DE "Decision") tried at every public entry of the Host.

Each value is given either as JSON text (read as JavaScript reads it, with
:func:`spec.read_json_number`) or as a Python value. Every rejection must leave the host exactly
as it was: sessions, agents, events and model requests equal before and after (DE-04..07).
"""

from __future__ import annotations

from typing import Any

import pytest

from subagent_tck.reference import Host
from subagent_tck.reference.store import depth_text
from subagent_tck.spec import (
    ABSENT,
    MAX_SAFE_INTEGER,
    DepthProblem,
    ErrorCode,
    TckError,
    check_depth,
    decide_start_depth,
    read_json_number,
)

from .conftest import make_host, state

JSON_TEXTS = ["-0", "-0.0", "1.0", "1e2", "0", "3", str(MAX_SAFE_INTEGER), str(2**53),
              "9007199254740993", "-1", "0.5", "true", '"1"', "null", "[]", "{}"]
PY_VALUES: list[tuple[str, Any]] = [
    ("nan", float("nan")), ("inf", float("inf")), ("-inf", float("-inf")), ("True", True),
    ("-0.0", -0.0), ("-1", -1), ("0.5", 0.5), ("'1'", "1"), ("None", None), ("[]", []),
    ("{}", {}), ("2**53", 2**53), ("1.0", 1.0),
]
# (label, python value, stored JSON text)
TABLE: list[tuple[str, Any, str]] = [
    *[(f"json:{t}", read_json_number(t), t) for t in JSON_TEXTS],
    *[(f"py:{label}", value, depth_text(value)) for label, value in PY_VALUES],
    ("json:NaN token", float("nan"), "NaN"),
    ("json:Infinity token", float("inf"), "Infinity"),
]
IDS = [row[0] for row in TABLE]


def root(host: Host) -> str:
    return host.agents()[0].id


def host_with_root() -> Host:
    host = make_host()
    host.create_agent()
    return host


def expect(host: Host, action: Any, code: ErrorCode | None) -> Any:
    before = state(host)
    if code is None:
        return action()
    with pytest.raises(TckError) as caught:
        action()
    assert caught.value.code is code, caught.value
    assert state(host) == before
    return None


@pytest.mark.parametrize(("label", "value", "text"), TABLE, ids=IDS)
def test_a_direct_start_judges_max_depth_as_the_oracle_does(
    label: str, value: Any, text: str
) -> None:
    host = host_with_root()
    decision = decide_start_depth(0, ABSENT, value)
    result = expect(
        host,
        lambda: host.start_and_run(root(host), {"provider": "spawn", "prompt": "x",
                                                "maxDepth": value}),
        decision.code,
    )
    if decision.ok:
        assert result.depth == decision.child_depth == 1


@pytest.mark.parametrize(("label", "value", "text"), TABLE, ids=IDS)
def test_a_stored_parent_header_is_judged_at_the_start_from_it(
    label: str, value: Any, text: str
) -> None:
    host = host_with_root()
    parent = host.agents()[0]
    host.store.put_header(parent.session, None, text)
    decision = decide_start_depth(value if text not in ("NaN", "Infinity") else float("nan"))
    result = expect(
        host, lambda: host.start_and_run(parent.id, {"provider": "spawn", "prompt": "x"}),
        decision.code,
    )
    if decision.ok:
        assert result.depth == decision.child_depth
        assert host.store.header(result.session).depth() == decision.child_depth


@pytest.mark.parametrize(("label", "value", "text"), TABLE, ids=IDS)
def test_a_runtime_depth_is_judged_at_every_start_from_that_agent(
    label: str, value: Any, text: str
) -> None:
    host = make_host()
    agent = host.create_agent(runtime_depth=value)
    decision = decide_start_depth(0, value)
    result = expect(
        host, lambda: host.start_and_run(agent.id, {"provider": "spawn", "prompt": "x"}),
        decision.code,
    )
    if decision.ok:
        assert result.depth == decision.child_depth


@pytest.mark.parametrize(("label", "value", "text"), TABLE, ids=IDS)
def test_a_stored_header_is_judged_when_its_session_is_resumed(
    label: str, value: Any, text: str
) -> None:
    host = host_with_root()
    host.store.put_header("planted", None, text)
    verdict = check_depth(value)
    before_agents = len(host.agents())
    resumed = expect(host, lambda: host.resume("planted"), None if verdict.ok else
                     ErrorCode.INVALID_DEPTH)
    if verdict.ok:
        assert resumed.depth == verdict.value and len(host.agents()) == before_agents + 1


@pytest.mark.parametrize(("label", "value", "text"), TABLE, ids=IDS)
def test_a_header_depth_given_to_create_agent_is_judged_there(
    label: str, value: Any, text: str
) -> None:
    host = host_with_root()
    verdict = check_depth(value)
    agent = expect(host, lambda: host.create_agent(header_depth=value), None if verdict.ok
                   else ErrorCode.INVALID_DEPTH)
    if verdict.ok:
        assert agent.depth == verdict.value


@pytest.mark.parametrize(("label", "value", "text"), TABLE, ids=IDS)
def test_the_host_depth_setting_is_judged_when_set(label: str, value: Any, text: str) -> None:
    host = host_with_root()
    verdict = check_depth(value)
    expect(host, lambda: host.set_host_depth(value), None if verdict.ok else
           ErrorCode.INVALID_DEPTH)
    assert host.host_depth == (verdict.value if verdict.ok else 1)


def test_a_parent_at_the_top_of_the_domain_cannot_start_a_child_with_or_without_cap() -> None:
    host = make_host()
    top = host.create_agent(header_depth=MAX_SAFE_INTEGER)
    for request in ({}, {"maxDepth": MAX_SAFE_INTEGER}):
        expect(host, lambda r=request: host.start_and_run(  # type: ignore[misc]
            top.id, {"provider": "spawn", "prompt": "x", **r}), ErrorCode.INVALID_DEPTH)


def test_the_runtime_depth_deepens_but_never_lowers_the_parent() -> None:
    host = make_host()
    deeper = host.create_agent(header_depth=1, runtime_depth=3)
    shallower = host.create_agent(header_depth=3, runtime_depth=1)
    for agent in (deeper, shallower):
        assert host.start_and_run(agent.id, {"provider": "spawn", "prompt": "x"}).depth == 4
        expect(host, lambda a=agent: host.start_and_run(  # type: ignore[misc]
            a.id, {"provider": "spawn", "prompt": "x", "maxDepth": 3}), ErrorCode.DEPTH_EXCEEDED)


def test_a_child_at_the_cap_is_allowed_and_one_past_it_is_refused() -> None:
    host = make_host()
    root_agent = host.create_agent()
    child = host.start_and_run(root_agent.id, {"provider": "spawn", "prompt": "x", "maxDepth": 1})
    assert child.depth == 1
    expect(host, lambda: host.start_and_run(
        child.agent, {"provider": "spawn", "prompt": "x", "maxDepth": 1}), ErrorCode.DEPTH_EXCEEDED)


def test_the_table_covers_every_kind_of_value_the_rules_list() -> None:
    problems = {check_depth(v).problem for _, v, _ in TABLE}
    assert problems == (set(DepthProblem) - {DepthProblem.MALFORMED}) | {None}
