"""The FR checks (conformance/engine/checks/first_request.py, first_request_later.py) against the
reference and the FR zoo.

The reference must pass every FR check in both editions and exercise every FR rule on every
provider that can be asked for a setup step; each FR zoo entry must fail its ``BREAKS`` rule
and nothing else of the PE, FR and EN checks.
"""

from __future__ import annotations

import pytest

from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import Edition

from .test_persona import assert_fails_exactly_its_rule
from .tiny_runner import checks_of, reference_passes, rules_of, run
from .zoo_cases import FIRST_REQUEST

FR_RULES = {f"FR-{n:02d}" for n in range(1, 6)}
FR_CHECKS = ("first_request", "first_request_later")


def test_every_fr_rule_has_a_check() -> None:
    assert rules_of(*FR_CHECKS) == FR_RULES


def test_the_reference_passes_every_first_request_check_in_both_editions() -> None:
    verdicts = reference_passes(*FR_CHECKS)
    for edition in Edition:
        for provider in ("spawn", "fork"):
            for rule in FR_RULES:
                cell = (rule, provider, edition.value)
                assert verdicts.outcomes[cell] == "pass", cell


def test_rollback_is_not_applicable_to_a_provider_without_setup_controls() -> None:
    verdicts = run(reference_target(), checks_of(*FR_CHECKS), editions=tuple(Edition))
    for edition in Edition:
        assert verdicts.outcomes["FR-03", "acp", edition.value] == "n/a"
        for rule in FR_RULES - {"FR-03"}:
            assert verdicts.outcomes[rule, "acp", edition.value] == "pass", rule


@pytest.mark.parametrize("name", FIRST_REQUEST)
def test_a_first_request_zoo_entry_fails_exactly_the_rule_it_breaks(name: str) -> None:
    assert_fails_exactly_its_rule(name)
