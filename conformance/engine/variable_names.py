"""Which template variable names a target accepts (docs/certify.md#generated-cases).

The rules fix no grammar for variable names (docs/rules.md#PE-05 asks a child persona for the
deployment persona's semantics, whatever they are). The checks draw names of the oracle's
grammar (a letter or ``_``, then letters, digits, ``_``), and a target whose grammar is
narrower (DSH's ``[a-z][a-z0-9_]*``, :data:`~.check.PORTABLE_VARIABLE`) refuses most of the
deployments they draw. Each refusal is a case that says nothing about the rules: drawing around
it one case at a time cost a narrow target most of its drawn cases (or all of them, when none of
a property's draws was portable) and most of its run time.

So a certification asks once, before the first check, on a deployment of its own: a target that
refuses variable names outside the portable set (:func:`refuses_unportable`) is given drawn
cases with portable names only. The answer is a fact of the target, found the same way on every
run, so a seed draws the same cases in a whole run and in a one-rule replay. A refusal of a
portable name stays a refusal the checks judge.
"""

from __future__ import annotations

import contextlib

from subagent_tck.spec import Edition, ErrorCode, TckError

from ..core.gateway import Gateway
from ..core.protocol import DeploymentConfig
from ..core.target import Target

#: Names of the oracle's grammar outside :data:`~.check.PORTABLE_VARIABLE`: a capital, a
#: leading ``_``, a capital inside.
PROBE_VARIABLES = {"Probe": "one", "_probe": "two", "probeName": "three"}


def refuses_unportable(target: Target, edition: Edition) -> bool:
    """Whether ``target`` refuses (with ``INVALID_TEMPLATE``) a deployment whose persona uses
    variables named outside the portable set. Any other answer, a refusal for another reason
    included, is False: the checks meet it themselves."""
    persona = " ".join(f"{{{{{name}}}}}" for name in PROBE_VARIABLES)
    try:
        deployment = target.deploy(
            DeploymentConfig(edition=edition, persona=persona, variables=PROBE_VARIABLES),
            Gateway())
    except TckError as exc:
        return exc.code is ErrorCode.INVALID_TEMPLATE
    except Exception:  # the checks report what the target does with a deployment
        return False
    with contextlib.suppress(Exception):
        deployment.close()
    return False
