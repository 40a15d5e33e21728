"""PE-05's template grammar as the checks judge it (docs/rules.md#PE-05): ``{{ name }}`` with
spaces is a spelling of the implementation's own grammar, so a target may refuse it (naming
it) or substitute it, never send it raw. DSH refuses it when the prompt is read; the empty-
variable check used to count that refusal as a failure."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.prompt import render_strict
from subagent_tck.spec import ErrorCode, TckError

_SPACED = re.compile(r"\{\{\s+[^{}]*\}\}|\{\{[^{}]*\s+\}\}")


def _no_spaces(template: str, variables: Mapping[str, str], what: str) -> str:
    spaced = _SPACED.findall(template)
    if spaced:
        raise TckError(ErrorCode.INVALID_TEMPLATE, f"{what}: malformed placeholder {spaced[0]} "
                       "(no spaces inside the braces)", {"malformed": spaced})
    return render_strict(template, variables, what)


def _spaced_kept_raw(template: str, variables: Mapping[str, str], what: str) -> str:
    spaced = _SPACED.findall(template)
    rest = _SPACED.sub("\0", template)
    out = render_strict(rest, variables, what)
    for token in spaced:  # the bug: a spelling it does not read is sent as it is
        out = out.replace("\0", token, 1)
    return out


class _NoSpacesHost(Host):
    render_template = staticmethod(_no_spaces)


class _SpacedRawHost(Host):
    render_template = staticmethod(_spaced_kept_raw)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_target_that_refuses_spaces_in_the_braces_naming_them_passes_pe_05(seed: int) -> None:
    target = ReferenceTarget(host_class=_NoSpacesHost, name="no-spaces")
    cert = certify(target, RunConfig(target_spec="no-spaces", seed=seed, rules=("PE-05",)))
    assert cert.rule("PE-05").outcome is Outcome.PASS, [
        f.message for f in cert.rule("PE-05").failures]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_target_that_sends_spaced_placeholders_raw_fails_pe_05(seed: int) -> None:
    target = ReferenceTarget(host_class=_SpacedRawHost, name="spaced-raw")
    cert = certify(target, RunConfig(target_spec="spaced-raw", seed=seed, rules=("PE-05",)))
    assert cert.rule("PE-05").outcome is Outcome.FAIL
