"""Each zoo entry of the TF, DE, CA, SP and MO families, judged by the checks of its family
(tiny runner, tests/conformance/checks/zoo_cases.py): it fails the rule it breaks and nothing
outside its ``BREAKS`` and ``ALSO_BREAKS``; a conforming entry passes every DE and CA check.
(tests/test_zoo.py certifies every entry with the whole catalogue.)"""

from __future__ import annotations

import pytest

from .zoo_cases import (
    CONFORMING,
    DEPTH,
    GATING,
    MODEL_SELECTION,
    SPAWN_POLICY,
    TOOL_FILTER,
    assert_breaks_only_its_rule,
    assert_conforms,
)

#: family -> its broken zoo entries
BROKEN = {"TF": TOOL_FILTER, "DE": DEPTH, "CA": GATING, "SP": SPAWN_POLICY,
          "MO": MODEL_SELECTION}


@pytest.mark.parametrize(("family", "name"),
                         [(family, name) for family, names in BROKEN.items() for name in names])
def test_a_zoo_entry_fails_the_rule_of_its_family_it_breaks_and_no_other(
        family: str, name: str) -> None:
    assert_breaks_only_its_rule(name, family)


@pytest.mark.parametrize(("family", "name"),
                         [(family, name) for family in ("DE", "CA") for name in CONFORMING])
def test_a_conforming_zoo_entry_passes_every_check_of_the_family(family: str, name: str) -> None:
    assert_conforms(name, family)
