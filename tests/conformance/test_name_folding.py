"""A runtime's declared tool-name folding (docs/driver-api.md#dialect): how a name folds, which
cases draw around a pair that folds alike, and that a folding runtime then fails TF-01 alone at
every seed, where undeclared it failed other rules at some seeds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from subagent_tck.conformance.cli import suite_for
from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.core.dialect import ToolNameFolding
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import DeploymentConfig, ToolSpec
from subagent_tck.conformance.engine.for_all import Inexpressible
from subagent_tck.conformance.engine.name_folding import Names, screened
from subagent_tck.conformance.engine.runner import RunConfig, certify

ROOT = Path(__file__).resolve().parents[2]
OPENCODE = ToolNameFolding(keeps="A-Za-z0-9_-", utf16=True)
CLAUDE = ToolNameFolding(keeps="A-Za-z0-9_-", utf16=True, normalization="NFKC")


def test_a_name_folds_as_the_runtime_spells_it() -> None:
    assert OPENCODE.fold("get_weatheré") == OPENCODE.fold("get_weather_") == "get_weather_"
    assert OPENCODE.fold("a😀b") == "a__b"  # two UTF-16 units
    assert ToolNameFolding(keeps="A-Za-z0-9_-").fold("a😀b") == "a_b"
    assert OPENCODE.fold("ﬁx") == "_x" and CLAUDE.fold("ﬁx") == "fix"
    assert OPENCODE.apart(["read", "Read", "read"]) and not OPENCODE.apart(["café", "caf_"])


@pytest.mark.parametrize("keeps", ["^a-z", "a-z]", "[a-z", "z-a", ""])
def test_a_declared_folding_that_is_not_one_character_class_is_refused(keeps: str) -> None:
    with pytest.raises(ValidationError, match="keeps"):
        ToolNameFolding(keeps=keeps)


def test_a_deployment_given_two_names_that_fold_alike_is_drawn_again() -> None:
    config = DeploymentConfig(tools=[ToolSpec(name="caf_", description="one")])
    names = screened(config, OPENCODE, ("TF-11",))
    assert names is not None
    names.admit(["caf_", "café_x"])  # the same name again, and another apart from it
    with pytest.raises(Inexpressible, match="'caf_' and 'café'"):
        names.admit(["café"])
    with pytest.raises(Inexpressible):
        screened(DeploymentConfig(tools=[ToolSpec(name=n, description=n) for n in
                                         ("xé", "x_")]), OPENCODE, ("FR-05",))


def test_the_checks_of_tf01_and_a_target_without_folding_are_not_screened() -> None:
    config = DeploymentConfig(tools=[ToolSpec(name=n, description=n) for n in ("xé", "x_")])
    assert screened(config, OPENCODE, ("TF-01", "TF-03")) is None
    assert screened(config, None, ("TF-11",)) is None
    names = Names(OPENCODE)
    names.admit(["x_"])
    with pytest.raises(Inexpressible):
        names.admit(["xé"])


@pytest.fixture
def folding_entry(monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    from examples.providers import tool_names_folded_declared as entry

    yield entry.FoldingTarget


def _certified(target_class: type, declares: bool, seed: int,
               rules: tuple[str, ...] = ()) -> Certificate:
    spec = "python:examples.providers.tool_names_folded_declared:provider"
    from examples.providers.tool_names_folded_declared import FoldingHost

    target = target_class(host_class=FoldingHost, name="folding")
    target.declares = declares
    suite = None if rules else suite_for(spec, "ci", fuzz_budget=float("inf"),
                                         fuzz_output_dir=None)
    try:
        return certify(target, RunConfig(target_spec=spec, seed=seed, rules=rules), suite=suite)
    finally:
        target.close()


def _failed(cert: Certificate) -> set[str]:
    return {r.id for r in cert.rules if r.outcome in (Outcome.FAIL, Outcome.ERROR)}


@pytest.mark.once
def test_a_runtime_that_declares_its_folding_fails_tf01_alone_where_undeclared_it_failed_others(
    folding_entry: type,
) -> None:
    # seed 7, undeclared: the drawn cases that happen to meet a folded pair fail TF-02, TF-08,
    # TF-11 and TF-12, and TF-01's own none (a whole run, measured when the declaration was
    # built); declared, a whole run at the same seed fails TF-01 alone (the zoo test certifies
    # the entry whole at seed 0 and its TF-01 again at seed 7)
    others = ("TF-02", "TF-08", "TF-11", "TF-12")
    undeclared = _failed(_certified(folding_entry, False, 7, rules=("TF-01", *others)))
    assert undeclared & set(others), undeclared
    declared = _certified(folding_entry, True, 7)
    assert _failed(declared) == {"TF-01"}, _failed(declared)
    assert any("tool names:" in line and "TF-01 alone" in line
               for line in declared.dialect.lines())
