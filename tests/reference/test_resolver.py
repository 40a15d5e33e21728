from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.reference import (
    AbortSignal,
    ExecutionContext,
    Resolver,
    Scope,
    Tool,
    ToolRegistry,
    ToolResult,
)
from subagent_tck.spec import (
    RUN_CODE,
    ErrorCode,
    Origin,
    PresentationMode,
    Restriction,
    TckError,
    resolve_view,
    sdk_binding_names,
    wire_tool_names,
)

from .conftest import echo

NAMES = ["a", "b", "c", "d", "e", "f"]


def context() -> ExecutionContext:
    return ExecutionContext("agent-x", AbortSignal())


def build(
    globals_: list[str], locals_: list[str], mode: PresentationMode
) -> tuple[Resolver, Scope]:
    registry = ToolRegistry()
    for name in globals_:
        registry.register(echo(name))
    scope = Scope("s", registry, mode)
    for name in locals_:
        scope.add_local(echo(name, description="local"))
    return Resolver(registry), scope


restrictions = st.lists(
    st.tuples(
        st.none() | st.lists(st.sampled_from(NAMES), unique=True),
        st.none() | st.lists(st.sampled_from(NAMES), unique=True),
    ).filter(lambda r: r != (None, None)),
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(
    globals_=st.lists(st.sampled_from(NAMES), unique=True),
    locals_=st.lists(st.sampled_from(NAMES), unique=True, max_size=3),
    rules=restrictions,
    mode=st.sampled_from(list(PresentationMode)),
)
def test_the_view_schemas_and_sdk_agree_with_the_oracle(
    globals_: list[str],
    locals_: list[str],
    rules: list[tuple[list[str] | None, list[str] | None]],
    mode: PresentationMode,
) -> None:
    resolver, scope = build(globals_, locals_, mode)
    installed = [Restriction.of(a, d) for a, d in rules]
    for restriction in installed:
        scope.install(restriction)
    expected = resolve_view(globals_, installed, locals_, mode)
    view = resolver.view(scope)
    assert [(e.name, e.origin) for e in view] == [(e.name, e.origin) for e in expected]
    assert {s.name for s in resolver.schemas(scope)} == wire_tool_names(expected, mode)
    assert set(resolver.sdk_bindings(scope)) == sdk_binding_names(expected, mode)
    for name in [*NAMES, RUN_CODE]:
        entry = resolver.lookup(scope, name)
        assert (entry is not None) == any(e.name == name for e in expected)


def test_the_global_view_has_no_restrictions_locals_or_run_code() -> None:
    resolver, _ = build(["a", "b"], ["c"], PresentationMode.BOTH)
    assert [(e.name, e.origin) for e in resolver.view(None)] == [
        ("a", Origin.GLOBAL),
        ("b", Origin.GLOBAL),
    ]


def test_a_local_shadows_the_global_and_its_body_runs() -> None:
    resolver, scope = build(["a"], [], PresentationMode.NATIVE)
    scope.add_local(Tool("a", lambda args, ctx: "local body", "local a"))
    entry = resolver.lookup(scope, "a")
    assert entry is not None and entry.origin is Origin.LOCAL
    assert resolver.execute(scope, "a", {}, context()).content == "local body"
    assert [s.description for s in resolver.schemas(scope)] == ["local a"]


def test_executing_a_name_outside_the_view_never_runs_the_body() -> None:
    ran: list[str] = []
    registry = ToolRegistry()
    registry.register(Tool("a", lambda args, ctx: ran.append("a")))
    scope = Scope("s", registry)
    scope.restrict({"deny": ["a"]})
    result = Resolver(registry).execute(scope, "a", {}, context())
    assert (result.is_error, result.code) == (True, "UNKNOWN_TOOL")
    assert ran == []


def test_a_body_error_becomes_an_error_result() -> None:
    def coded(args: Mapping[str, Any], ctx: ExecutionContext) -> None:
        raise TckError(ErrorCode.DEPTH_EXCEEDED, "too deep")

    def crash(args: Mapping[str, Any], ctx: ExecutionContext) -> None:
        raise RuntimeError("boom")

    registry = ToolRegistry()
    registry.register(Tool("coded", coded))
    registry.register(Tool("crash", crash))
    registry.register(Tool("own", lambda args, ctx: ToolResult(True, "X", "mine")))
    scope = Scope("s", registry)
    resolver = Resolver(registry)
    assert resolver.execute(scope, "coded", {}, context()) == ToolResult(
        True, "DEPTH_EXCEEDED", "too deep"
    )
    crashed = resolver.execute(scope, "crash", {}, context())
    assert crashed.is_error and crashed.code is None and "boom" in crashed.content
    assert resolver.execute(scope, "own", {}, context()) == ToolResult(True, "X", "mine")


def test_run_code_runs_bound_calls_and_refuses_unbound_ones() -> None:
    resolver, scope = build(["a", "b"], ["mine"], PresentationMode.PTC)
    scope.restrict({"deny": ["b"]})
    result = resolver.execute(
        scope,
        RUN_CODE,
        {"calls": [{"tool": "a", "arguments": {"x": 1}}, {"tool": "b"}, {"tool": "mine"},
                   {"tool": RUN_CODE}]},
        context(),
    )
    codes = [r["code"] for r in result.content["results"]]
    assert not result.is_error
    assert codes == [None, "UNKNOWN_TOOL", None, "UNKNOWN_TOOL"]
    assert result.content["results"][0]["content"] == {"tool": "a", "arguments": {"x": 1}}


def test_run_code_with_a_malformed_call_list_is_an_invalid_request_result() -> None:
    resolver, scope = build(["a"], [], PresentationMode.BOTH)
    for arguments in ({}, {"calls": "a"}, {"calls": [{"tool": 1}]},
                      {"calls": [{"tool": "a", "arguments": []}]}):
        result = resolver.execute(scope, RUN_CODE, arguments, context())
        assert (result.is_error, result.code) == (True, "INVALID_REQUEST")


def test_native_mode_offers_no_run_code_and_binds_nothing() -> None:
    resolver, scope = build(["a"], [], PresentationMode.NATIVE)
    assert resolver.sdk_bindings(scope) == ()
    assert resolver.execute(scope, RUN_CODE, {"calls": []}, context()).code == "UNKNOWN_TOOL"


def test_ptc_schemas_carry_only_run_code() -> None:
    resolver, scope = build(["a", "b"], [], PresentationMode.PTC)
    assert [s.name for s in resolver.schemas(scope)] == [RUN_CODE]
    assert resolver.sdk_bindings(scope) == ("a", "b")
