"""A seed draws the same cases whatever else the process has imported (docs/certify.md#seeds):
Hypothesis's pool of literals found in loaded local modules is hidden while the kit draws."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator

import pytest
from hypothesis import strategies as st

from subagent_tck.conformance.engine import stable_draws as stable_draws_module
from subagent_tck.conformance.engine.stable_draws import stable_draws
from tests.conformance.test_shrink_budget import context

from .hypothesis_draws import seeded_draws

#: A prefix no draw reaches by chance: only the loaded module's literals carry it.
MARK = "qzv-literal-"
STRATEGY = st.lists(st.text(max_size=20), min_size=40, max_size=40)


@pytest.fixture
def literals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A module full of string literals, loaded from a folder Hypothesis counts as local."""
    folder = tmp_path_factory.mktemp("extra_literals")
    path = folder / "extra_literals_module.py"
    path.write_text("WORDS = [\n" + "".join(f"    '{MARK}{n}',\n" for n in range(300)) + "]\n")
    spec = importlib.util.spec_from_file_location("extra_literals_module", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def load() -> None:
        sys.modules["extra_literals_module"] = module

    yield load
    sys.modules.pop("extra_literals_module", None)


def plain_draws(seed: int) -> list[list[str]]:
    """What a bare seeded Hypothesis test draws (the kit's wrapper not used)."""
    return seeded_draws(STRATEGY, seed, 30)


def kit_draws(seed: int) -> list[list[str]]:
    """What a check's property (CheckContext.for_all) draws at ``seed``."""
    ctx, drawn = context(max_examples=30), []
    ctx.seed = seed
    ctx.for_all(STRATEGY, drawn.append)
    return drawn


def marked(draws: list[list[str]]) -> int:
    return sum(value.startswith(MARK) for values in draws for value in values)


def test_without_the_guard_a_loaded_module_changes_what_a_seed_draws(literals) -> None:
    """The hazard is real on this Hypothesis: the bare test draws the module's literals."""
    if stable_draws_module._providers() is None:  # a Hypothesis before 6.131 has no such pool
        pytest.skip("this Hypothesis draws no local constants")
    before = plain_draws(7)
    literals()
    after = plain_draws(7)
    assert marked(after) > 0 and before != after


def test_a_check_draws_the_same_cases_before_and_after_a_module_is_loaded(literals) -> None:
    before = kit_draws(7)
    literals()
    after = kit_draws(7)
    assert marked(after) == 0
    assert before == after


def test_the_guard_nests_and_restores_the_pool_when_the_outermost_one_ends(literals) -> None:
    from hypothesis.internal.conjecture import providers

    original = providers._get_local_constants
    with stable_draws():
        with stable_draws():
            assert providers._get_local_constants is not original
        assert providers._get_local_constants is not original
    assert providers._get_local_constants is original
    literals()  # the bare test sees local constants again once the kit is done
    assert marked(plain_draws(7)) > 0
