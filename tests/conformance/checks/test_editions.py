"""The EN checks (conformance/engine/checks/editions.py) against the reference and the EN zoo.

Each EN check runs only in its edition; the reference passes them all. Each EN zoo entry fails
its ``BREAKS`` rule and nothing else of the PE, FR and EN checks, and ``fewer_capabilities`` (a
conforming target whose providers advertise fewer controls) fails nothing.
"""

from __future__ import annotations

import pytest

from subagent_tck.conformance.engine.check import REGISTRY
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import Edition

from .test_persona import FAMILY_CHECKS, assert_fails_exactly_its_rule
from .tiny_runner import checks_of, reference_passes, run
from .zoo_cases import EDITIONS, entry

EN_RULES = {"EN-01", "EN-02", "EN-03"}


def test_every_en_rule_has_an_edition_bound_check() -> None:
    checks = [REGISTRY[n] for n in checks_of("editions")]
    assert {r for c in checks for r in c.rules} == EN_RULES
    assert all(c.edition is not None for c in checks)


def test_the_reference_passes_every_edition_check() -> None:
    verdicts = reference_passes("editions")
    assert verdicts.outcomes["EN-01", "spawn", Edition.PRESET_COMPOSITION.value] == "pass"
    assert verdicts.outcomes["EN-02", "acp", Edition.PRESET_COMPOSITION.value] == "pass"
    assert verdicts.outcomes["EN-03", "acp", Edition.REQUEST_CONTROLS.value] == "pass"
    assert ("EN-03", "spawn", Edition.PRESET_COMPOSITION.value) not in verdicts.outcomes


@pytest.mark.parametrize("name", EDITIONS)
def test_an_edition_zoo_entry_fails_exactly_the_rule_it_breaks(name: str) -> None:
    assert_fails_exactly_its_rule(name)


def test_a_target_with_fewer_capabilities_fails_none_of_these_checks() -> None:
    module = entry("fewer_capabilities")
    assert module.BREAKS is None
    verdicts = run(module.provider(), checks_of(*FAMILY_CHECKS), editions=tuple(Edition))
    assert verdicts.bad() == {}, verdicts.explain()
    exercised = {k[0] for k, v in verdicts.outcomes.items() if v == "pass"}
    assert {"PE-01", "PE-03", "FR-03", "EN-01", "EN-02", "EN-03"} <= exercised


def test_a_subagent_tool_loaded_with_request_controls_starts_no_composed_child_in_presets() -> None:
    # EN-02 through the subagent tool: the reference refuses the load, for every provider
    verdicts = run(reference_target(), ["subagent-tool-overrides-refused"],
                   editions=(Edition.PRESET_COMPOSITION,))
    assert verdicts.bad() == {}, verdicts.explain()
    assert {v for k, v in verdicts.outcomes.items() if k[0] == "EN-02"} == {"pass"}
    # a tool that takes them anyway and composes its children by them fails it
    broken = entry("tool_options_ignore_edition")
    failed = run(broken.provider(), ["subagent-tool-overrides-refused"],
                 editions=(Edition.PRESET_COMPOSITION,)).failed_rules()
    assert failed == {"EN-02"}
