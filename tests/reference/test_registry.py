from __future__ import annotations

import pytest

from subagent_tck.reference import ToolRegistry
from subagent_tck.spec import ErrorCode, TckError

from .conftest import echo


def test_global_tools_keep_registration_order() -> None:
    registry = ToolRegistry()
    for name in ("b", "a", "c"):
        registry.register(echo(name))
    assert registry.names() == ("b", "a", "c")
    assert len(registry) == 3 and "a" in registry and registry.get("a") is not None


def test_registering_a_global_name_twice_is_a_duplicate_tool() -> None:
    registry = ToolRegistry()
    registry.register(echo("a"))
    with pytest.raises(TckError) as caught:
        registry.register(echo("a"))
    assert caught.value.code is ErrorCode.DUPLICATE_TOOL
    assert registry.names() == ("a",)


def test_run_code_cannot_be_registered_globally() -> None:
    registry = ToolRegistry()
    with pytest.raises(TckError) as caught:
        registry.register(echo("run_code"))
    assert caught.value.code is ErrorCode.RESERVED_NAME
    assert registry.names() == ()


@pytest.mark.parametrize("name", ["missing", 3, None])
def test_unregistering_a_missing_name_is_unknown_tool(name: object) -> None:
    registry = ToolRegistry()
    registry.register(echo("a"))
    with pytest.raises(TckError) as caught:
        registry.unregister(name)  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.UNKNOWN_TOOL
    assert registry.names() == ("a",)


def test_a_removed_name_can_be_registered_again_at_the_end() -> None:
    registry = ToolRegistry()
    for name in ("a", "b"):
        registry.register(echo(name))
    registry.unregister("a")
    registry.register(echo("a"))
    assert registry.names() == ("b", "a")


def test_listeners_see_every_change_until_removed() -> None:
    registry = ToolRegistry()
    seen: list[tuple[str, str]] = []
    remove = registry.add_listener(lambda kind, tool: seen.append((kind, tool.name)))
    registry.register(echo("a"))
    registry.unregister("a")
    remove()
    remove()
    registry.register(echo("b"))
    assert seen == [("registered", "a"), ("unregistered", "a")]
