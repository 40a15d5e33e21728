"""The MO checks: they pass on the reference in both editions and are not applicable where no
provider advertises modelSelection (tiny runner); each zoo entry that breaks MO-01 or MO-02
fails it and nothing else (test_zoo_families.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from subagent_tck.conformance.engine.checks._models import NOT_MODEL_NAMES, model_names, relatives
from subagent_tck.spec import Edition

from .tiny_runner import reference_passes, run
from .zoo_cases import assert_judged_where_advertised, entry


def test_every_model_check_passes_on_the_reference_in_both_editions() -> None:
    verdicts = reference_passes("model_selection", max_examples=3)
    for edition in ("preset-composition", "request-controls"):
        assert verdicts.outcomes["MO-01", "spawn", edition] == "pass"
        assert verdicts.outcomes["MO-02", "fork", edition] == "pass"
        assert ("MO-01", "acp", edition) not in verdicts.outcomes  # acp: no modelSelection


def test_a_provider_that_advertises_model_selection_is_judged_beside_one_that_does_not() -> None:
    assert_judged_where_advertised("model_selection", "MO-01", advertises="fork", lacks="spawn")


@settings(max_examples=60, deadline=None)
@given(model_names(2, 5))
def test_drawn_model_names_are_distinct_names_a_runtime_could_use(names: list[str]) -> None:
    assert len(set(names)) == len(names)
    assert not set(names) & NOT_MODEL_NAMES and all(0 < len(n) <= 64 for n in names)


def test_the_relatives_of_a_model_name_differ_from_it_by_case_extension_or_prefix() -> None:
    kin = relatives("gpt-4o")
    assert {"GPT-4O", "gpt-4o-mini", "gpt-4"} <= set(kin) and "gpt-4o" not in kin


def test_a_target_that_caps_nesting_by_default_is_no_model_failure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Claude Code 2.1.217 caps nesting at 1 unless told otherwise: its grandchildren were
    # refused with DEPTH_EXCEEDED, and model-nested read that as MO-01's failure. A default cap
    # is DE-10's question; MO judges the children the target does start.
    module = entry("default_cap_when_omitted")
    monkeypatch.setattr(module, "DEFAULT_CAP", 1)
    verdicts = run(module.provider(), ["model-nested"], max_examples=2,
                   editions=(Edition.PRESET_COMPOSITION,))
    assert not verdicts.bad(), verdicts.explain()
    assert "pass" in {v for (rule, _, _), v in verdicts.outcomes.items() if rule == "MO-01"}


def test_model_nested_draws_no_names_once_a_fixed_case_failed_mo_01() -> None:
    # against a runtime each drawn case is a dozen child runs: once a fixed case failed the
    # rule, drawn names add nothing to its verdict (as model-composed)
    verdicts = run(entry("child_runs_on_parent_model").provider(), ["model-nested"],
                   max_examples=5, editions=(Edition.PRESET_COMPOSITION,))
    failures = [f for f in verdicts.failures if f.rule == "MO-01"]
    assert failures and "MO-01" in verdicts.failed_rules(), verdicts.explain()
    assert all(f.example is None and f.assertion is not None and f.assertion.case == "fixed"
               for f in failures), [(f.example, f.assertion) for f in failures]
