"""The rule and error models (spec/rule.py, spec/errors.py)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from subagent_tck.spec import ErrorCode, Example, Family, Level, Rule, Source, TckError


def rule(**overrides: object) -> Rule:
    fields: dict[str, object] = {
        "id": "TF-01",
        "slug": "allow-before-deny",
        "family": Family.TF,
        "level": Level.MUST,
        "statement": "A statement.",
        "rationale": "A reason.",
        "source": Source(document="RULES.md", section="Decision"),
    }
    fields.update(overrides)
    return Rule.model_validate(fields)


def test_a_rule_has_a_title_and_an_anchor_from_its_id() -> None:
    made = rule()
    assert made.title == "TF-01 allow-before-deny" and made.anchor == "tf-01"
    assert made.examples == () and made.stateful is False


@pytest.mark.parametrize(
    ("field", "value"), [("id", "TF-1"), ("id", "XX-01"), ("slug", "Bad_Slug")]
)
def test_a_malformed_id_or_slug_is_refused(field: str, value: str) -> None:
    with pytest.raises(ValidationError):
        rule(**{field: value})


def test_rules_and_examples_are_frozen() -> None:
    example = Example(title="t", holds=True)
    with pytest.raises(ValidationError):
        example.title = "u"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        rule().slug = "other"  # type: ignore[misc]


def test_an_error_carries_its_code_message_and_details() -> None:
    error = TckError("NO_PROVIDER", "no provider named 'x'", {"provider": "x"})
    assert error.code is ErrorCode.NO_PROVIDER
    assert str(error) == "NO_PROVIDER: no provider named 'x'"
    assert error.to_json() == {
        "code": "NO_PROVIDER",
        "message": "no provider named 'x'",
        "details": {"provider": "x"},
    }
    assert TckError(ErrorCode.USAGE, "m").to_json() == {"code": "USAGE", "message": "m"}


def test_an_unknown_error_code_is_refused() -> None:
    with pytest.raises(ValueError):
        TckError("NOT_A_CODE", "m")
