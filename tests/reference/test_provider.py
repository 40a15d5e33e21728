from __future__ import annotations

import pytest

from subagent_tck.reference import (
    AcpProvider,
    InProcessProvider,
    Provider,
    ProviderRegistry,
    default_providers,
)
from subagent_tck.spec import CONTROLS, Capability, ErrorCode, TckError


def test_the_reference_ships_spawn_fork_and_a_provider_without_controls() -> None:
    spawn, fork, acp = default_providers()
    assert (spawn.name, fork.name, acp.name) == ("spawn", "fork", "acp")
    assert spawn.capabilities == fork.capabilities == frozenset(CONTROLS)
    assert acp.capabilities == frozenset()
    assert (spawn.inherits_parent_context, fork.inherits_parent_context,
            acp.inherits_parent_context) == (False, True, False)
    assert type(spawn) is type(fork) is InProcessProvider
    assert isinstance(acp, AcpProvider) and not acp.supports(Capability.PERSONA)
    assert "depthLimit" in repr(spawn)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("",), {}), ((3,), {}), (("x", ["nope"]), {}),
     (("x", [Capability.INHERITS_PARENT_CONTEXT]), {})],
)
def test_a_malformed_provider_is_refused(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    with pytest.raises((TckError, ValueError)):
        Provider(*args, **kwargs)  # type: ignore[arg-type]


def test_the_registry_is_live_with_listeners() -> None:
    registry = ProviderRegistry()
    seen: list[tuple[str, str]] = []
    remove = registry.add_listener(lambda kind, p: seen.append((kind, p.name)))
    spawn = InProcessProvider("spawn")
    registry.add(spawn)
    assert registry.get("spawn") is spawn and registry.get(3) is None
    assert registry.remove("spawn") is spawn
    remove()
    remove()
    registry.add(spawn)
    assert seen == [("added", "spawn"), ("removed", "spawn")]
    assert registry.all() == (spawn,)


def test_registry_misuse_has_stable_codes() -> None:
    registry = ProviderRegistry()
    registry.add(InProcessProvider("spawn"))
    with pytest.raises(TckError) as dup:
        registry.add(InProcessProvider("spawn"))
    with pytest.raises(TckError) as wrong:
        registry.add("spawn")  # type: ignore[arg-type]
    with pytest.raises(TckError) as missing:
        registry.remove("fork")
    assert (dup.value.code, wrong.value.code, missing.value.code) == (
        ErrorCode.INVALID_CONFIG, ErrorCode.INVALID_CONFIG, ErrorCode.NO_PROVIDER
    )
