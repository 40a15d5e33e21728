"""The names the TF checks' hand-written cases use fold apart under every tool-name folding a
runtime adapter declares (docs/driver-api.md#tool-name-folding): a fixed case whose names fold
alike is one the runtime may refuse to set up, so a check would lose it on exactly the runtimes
that declare a folding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "claude-code"), str(ADAPTERS / "opencode")]

from claude_code_adapter.dialect import FOLDING as CLAUDE_CODE  # noqa: E402
from opencode_adapter.dialect import FOLDING as OPENCODE  # noqa: E402

from subagent_tck.conformance.core.dialect import ToolNameFolding  # noqa: E402
from subagent_tck.conformance.engine.checks import _names  # noqa: E402
from subagent_tck.conformance.engine.checks._tool_filter_views import ABC, AWKWARD  # noqa: E402


@pytest.mark.parametrize("folding", [CLAUDE_CODE, OPENCODE], ids=["claude-code", "opencode"])
@pytest.mark.parametrize("names", [ABC, AWKWARD, list(_names.AWKWARD)],
                         ids=["abc", "tf-awkward", "names-awkward"])
def test_the_fixed_names_of_the_tf_checks_fold_apart_under_each_declared_folding(
        folding: ToolNameFolding, names: list[str]) -> None:
    alike = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
             if folding.fold(a) == folding.fold(b)]
    assert folding.apart(names) and not alike, alike


def test_the_check_fails_on_fixed_names_a_folding_spells_alike() -> None:
    folding = ToolNameFolding(keeps="a-z_", via="a folding that keeps [a-z_] only")
    assert not folding.apart(["read_file", "read-file"])
