"""Running one check: its failures, crashes, refusals and the target's faults become values
of its context, never exceptions (docs/certify.md#reading-a-certificate)."""

from __future__ import annotations

from subagent_tck.spec import TckError

from ..core.unsupported import CoreRefused, Unsupported
from .check import (
    TARGET_FAULTS,
    CheckContext,
    CheckDefinitionError,
    Inexpressible,
    fault_text,
)
from .faults import TargetFault
from .for_all import Abort as _Abort
from .timings import format_exception


def stop_unsupported(ctx: CheckContext, exc: Unsupported) -> None:
    """The check stopped at an operation the target cannot express: each of its rules with no
    failure so far is not applicable with the reason (a pass seen before is no verdict: the
    rest of the rule's scenario did not run); failures found before stay failures."""
    ctx.unsupported = exc.reason
    failed = {f.rule for f in ctx.failures}
    for rule in ctx.check.rules:
        if rule not in failed:
            ctx.exercised.discard(rule)
            ctx.not_applicable[rule] = exc.reason


def run_check(ctx: CheckContext) -> None:
    """Run one check in ``ctx``: failures and crashes become values, never exceptions."""
    try:
        try:
            ctx.check.function(ctx)
        finally:
            # a fault of the target that a scripted step met (in the gateway's thread) ends
            # the check as the target's error; what the check judged of the run the fault cut
            # short is no verdict and is dropped (errors it met before stay)
            stepped = next((f for f in ctx.gateway.faults if isinstance(f, TargetFault)), None)
            if stepped is not None:
                ctx.failures[:] = [f for f in ctx.failures if f.error]
                raise stepped
    except _Abort:
        pass
    except TargetFault as broken:  # never a verdict: the check ends as an error of the target
        ctx.fail(ctx.check.rules[0], f"{broken.operation}: {fault_text(broken.error)}",
                 observed=broken.error.to_json(), error=True,
                 traceback=format_exception(broken.error), key=broken.operation)
    except Unsupported as exc:
        stop_unsupported(ctx, exc)
    except Inexpressible as exc:  # a fixed case the target may refuse to set up
        stop_unsupported(ctx, Unsupported("deploy", "the check's fixed case", str(exc)))
    except CheckDefinitionError as exc:  # the kit's own mistake, never the target's
        ctx.fail(ctx.check.rules[0], f"the check is defined wrongly: {exc.message}", error=True,
                 traceback=format_exception(exc))
    except CoreRefused as exc:
        ctx.fail(ctx.check.rules[0], str(exc), observed={"operation": exc.operation},
                 error=True, traceback=format_exception(exc),
                 key=f"UNSUPPORTED_OPERATION for the core operation {exc.operation}")
    except TckError as exc:
        fault = exc.code in TARGET_FAULTS
        said = fault_text(exc) if fault else f"unexpected refusal {exc.code.value}: {exc.message}"
        ctx.fail(ctx.check.rules[0], said, observed=exc.to_json(), error=fault,
                 traceback=format_exception(exc),
                 key="the target failed" if fault else "unexpected refusal")
    except Exception as exc:
        rule = ctx.check.rules[0]
        ctx.fail(rule, f"the check crashed: {type(exc).__name__}: {exc}", error=True,
                 traceback=format_exception(exc), key=f"the check crashed: {type(exc).__name__}")
    finally:
        ctx.close()
