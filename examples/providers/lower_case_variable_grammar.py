"""A conforming target whose template variables are lower case only (BREAKS None).

Its deployment refuses a variable name outside ``[a-z][a-z0-9_]*`` (``Team``, ``_x``, ``aA``)
with ``INVALID_TEMPLATE`` naming it, as DSH's ``dsh-system-prompt`` does (docs/dsh.md). The
rules fix no grammar for variable names: a child persona needs the deployment persona's
semantics (docs/rules.md#PE-05), and this deployment never has such a variable. The checks
draw names of the oracle's wider grammar; certify finds this target's refusal once before the
checks and draws portable names for it (docs/certify.md#generated-cases). A certifier that
counted the refusal as a failure (or as an error of the target) gives a false failure here.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.engine.check import PORTABLE_VARIABLE
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.spec import ErrorCode, TckError

BREAKS = None


class LowerCaseGrammarHost(Host):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        refused = [n for n in kwargs.get("variables") or {} if not PORTABLE_VARIABLE.fullmatch(n)]
        if refused:
            raise TckError(ErrorCode.INVALID_TEMPLATE,
                           f"variable names must match [a-z][a-z0-9_]*: {refused}",
                           {"offending": refused})
        super().__init__(*args, **kwargs)


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=LowerCaseGrammarHost, name="lower-case-variable-grammar")
