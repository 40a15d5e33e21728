"""Outcomes and failures as values (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .fingerprint import Assertion


class Outcome(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"  # the target broke the protocol or crashed, or the check could not finish
    NOT_APPLICABLE = "not-applicable"
    EXPECTED_FAIL = "expected-fail"  # listed in the baseline and failed
    UNEXPECTED_PASS = "unexpected-pass"  # listed in the baseline but passed: fails the run
    NOT_RUN = "not-run"  # deselected (--rule); a MUST that did not run never certifies


#: Outcomes that count against a certificate when the rule is a MUST.
BAD = frozenset({Outcome.FAIL, Outcome.ERROR, Outcome.UNEXPECTED_PASS, Outcome.NOT_RUN})
#: Outcomes of a rule that was judged (a check ran and decided it).
RAN = frozenset({Outcome.PASS, Outcome.FAIL, Outcome.ERROR, Outcome.EXPECTED_FAIL,
                 Outcome.UNEXPECTED_PASS})


class Failure(BaseModel):
    """One broken expectation: everything a provider author needs to fix it. Frozen: whole
    when made, never changed after (a copy with ``model_copy(update=...)`` adds to one)."""

    model_config = ConfigDict(frozen=True)

    rule: str
    check: str
    title: str
    message: str
    expected: Any = None
    observed: Any = None
    provider: str | None = None
    error: bool = False  # True: the target crashed or broke the protocol (outcome error)
    cause: str | None = None  # why the child did what it did: stop reason, error text, exception
    traceback: str | None = None
    transcript: list[dict[str, Any]] = Field(default_factory=list)
    example: str | None = None  # the (shrunk) drawn state, when Hypothesis found it
    replay: str | None = None  # a command that reproduces this failure alone, when it has one
    #: which assertion failed and how, the same at every seed where the target behaves the
    #: same: what a baseline names (docs/baseline.md#the-fingerprint)
    assertion: Assertion | None = None
    #: the other rules the same observation belongs to (the campaign's finding, filed under
    #: its first rule): an entry of one of them that excused another failure of the run and
    #: names an assertion gone wrong the same way excuses it too
    #: (docs/baseline.md#what-a-run-makes-of-it)
    also: list[str] = Field(default_factory=list)


@dataclass
class Evidence:
    """What one check run (or the plan) says about one rule for one provider; merged, a
    rule's result for one provider (a *cell*), which a baseline may relabel."""

    outcome: Outcome
    reason: str = ""
    failures: list[Failure] = field(default_factory=list)
    #: not applicable because the target cannot express an operation (UNSUPPORTED_OPERATION)
    inexpressible: bool = False
