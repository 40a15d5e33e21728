"""The TF checks: they pass on the reference target (tiny runner,
tests/conformance/checks/tiny_runner.py); each zoo entry that breaks their rule fails it and
nothing else of the family (test_zoo_families.py)."""

from __future__ import annotations

from typing import Any

import pytest

from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.engine.checks import tool_filter_invalid
from subagent_tck.conformance.transports.builtin import ReferenceTarget, reference_target
from subagent_tck.spec import Edition

from .tiny_runner import reference_passes, run
from .zoo_cases import assert_conforms

TF_RULES = {f"TF-{n:02d}" for n in range(1, 17)}


def test_every_tool_filter_check_passes_on_the_reference_in_both_editions() -> None:
    verdicts = reference_passes("tool_filter", "tool_filter_invalid", "tool_filter_live",
                                "tool_filter_runtime", "tool_filter_guidance",
                                "tool_filter_shapes", "tool_filter_calls", "tool_filter_locals",
                                max_examples=3)
    assert {rule for rule, _ in verdicts.passed()} == TF_RULES


def test_the_child_view_check_is_not_applicable_to_a_provider_without_tool_filter() -> None:
    verdicts = run(reference_target(), ["tool-filter-child-view"], max_examples=2)
    assert {k[1] for k in verdicts.outcomes} == {"spawn", "fork"}  # acp: not planned
    assert set(verdicts.outcomes.values()) == {"pass"}


class _ChildFiltersIgnored(ReferenceTarget):
    """Like Codex 0.171's agent files: a child's composed tool filter is read and not applied,
    so every child is offered every global."""

    def deploy(self, config: DeploymentConfig, gateway: Any) -> Any:
        presets = [p.model_copy(update={"toolFilter": None}) for p in config.presets]
        return super().deploy(config.model_copy(update={"presets": presets}), gateway)


def test_a_child_offered_every_global_leaves_tf12_not_applicable_in_the_child_view_check(
) -> None:
    verdicts = run(_ChildFiltersIgnored(), ["tool-filter-child-view"],
                   editions=[Edition.PRESET_COMPOSITION], max_examples=2)
    cells = {(k[0], k[1]): v for k, v in verdicts.outcomes.items()}
    assert cells["TF-01", "spawn"] == "fail", verdicts.explain()
    assert cells["TF-12", "spawn"] == "n/a", cells  # no hidden tool: never "not-run"


def test_views_are_compared_as_sets_so_a_reversed_order_conforms() -> None:
    assert_conforms("reversed_view_order", "TF")


@pytest.mark.parametrize("name", ["permission_rules", "permission_rules_variants"])
def test_permission_rules_in_a_declared_grammar_and_its_variants_conform(name: str) -> None:
    assert_conforms(name, "TF")


def test_an_unknown_name_in_an_error_message_is_found_only_as_a_whole_word() -> None:
    from subagent_tck.conformance.engine.checks._observed import missing_names
    from subagent_tck.spec import ErrorCode, TckError

    exc = TckError(ErrorCode.INVALID_TOOL_FILTER, "unknown: alphaa, run_code")
    assert missing_names(exc, ["alphaa", "run_code", "alpha"]) == ["alpha"]
    listed = TckError(ErrorCode.INVALID_TOOL_FILTER, "bad", {"offending": ["lima"]})
    assert missing_names(listed, ["lima", "zulu"]) == ["zulu"]


def test_drawn_unknown_name_filters_always_name_a_stranger() -> None:
    from hypothesis import given, settings

    from subagent_tck.spec import validate_restriction

    @settings(max_examples=30, database=None)
    @given(tool_filter_invalid.unknown_names_st())
    def prop(state: dict) -> None:
        verdict = validate_restriction(state["restriction"], state["globals"])
        assert verdict.offending

    prop()
