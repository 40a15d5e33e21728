"""conformance/engine/check.py: checks registered under stable names, misuse refused at
definition."""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
from pathlib import Path

import pytest

from subagent_tck.conformance.engine import check as check_module
from subagent_tck.conformance.engine.check import CheckDefinitionError, check


@pytest.fixture(autouse=True)
def registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """A registry of this test's own (the kit's checks stay as they are)."""
    own: dict[str, object] = {}
    monkeypatch.setattr(check_module, "REGISTRY", own)
    return own


def test_a_check_citing_no_rule_is_refused_with_an_example():
    with pytest.raises(CheckDefinitionError, match=r"@check\('TF-01'\)"):
        check()


def test_a_check_citing_an_unknown_rule_id_is_refused_naming_it():
    with pytest.raises(CheckDefinitionError, match="ZZ-99"):
        check("TF-01", "ZZ-99")


def test_a_check_is_registered_under_its_function_name_or_the_given_one(registry):
    @check("TF-01")
    def allow_wins(ctx):
        """Allow before deny."""

    @check("TF-02", name="deny-stays")
    def other(ctx):
        pass

    assert sorted(registry) == ["allow-wins", "deny-stays"]
    assert registry["allow-wins"].rules == ("TF-01",)
    assert registry["allow-wins"].doc == "Allow before deny."


def test_two_definitions_under_one_name_are_refused_with_the_fix(registry):
    @check("TF-01", name="twice")
    def first(ctx):
        pass

    with pytest.raises(CheckDefinitionError, match=re.escape("pass name='...'")):
        @check("TF-02", name="twice")
        def second(ctx):
            pass

    assert registry["twice"].function is first


def test_a_module_imported_again_registers_its_checks_again(registry, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "tck_reimported_checks.py").write_text(textwrap.dedent("""
        from subagent_tck.conformance.engine.check import check

        @check("TF-01")
        def reimported(ctx):
            pass
    """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("tck_reimported_checks")
    first = registry["reimported"].function
    del sys.modules["tck_reimported_checks"]  # what a runner restoring sys.modules does
    again = importlib.import_module("tck_reimported_checks")
    assert again is not module
    assert registry["reimported"].function is again.reimported is not first
    importlib.reload(again)  # and importlib.reload
    assert registry["reimported"].function is sys.modules["tck_reimported_checks"].reimported
    del sys.modules["tck_reimported_checks"]


def test_a_failure_once_made_cannot_be_changed() -> None:
    from pydantic import ValidationError

    from subagent_tck.conformance.core.outcome import Failure

    failure = Failure(rule="FR-01", check="c", title="t", message="m")
    with pytest.raises(ValidationError, match="frozen"):
        failure.cause = "later"  # type: ignore[misc]
    assert failure.model_copy(update={"cause": "later"}).cause == "later" and not failure.cause
