"""ST-09 for a runtime's own delegation tool (docs/rules.md#ST-09), per provider that names one
(``ProviderInfo.delegationTool``: Claude Code's ``Agent``, opencode's ``task``).

A target that ships the kit's ``subagent`` tool is judged on that tool
(subagent_tool_calls.py). A runtime whose model delegates through a tool of its own answers the
rule's result half with it: a child that completed gives its parent's call its output, and one
that stopped for any other reason gives an errored result (the runtime's error flag: its
wire's, or where the wire has none its own record of the call), never its partial output as
success; how the result's text words the reason is the runtime's. What the
parent's call got is the start's ``RunResult.delegated`` (docs/driver-api.md#spawn-policies-and-
models): where the target does not report it, the partitions are inexpressible, with that
reason. The tool's abort and the run's disposal are the configurable tool's part of the rule:
the kit cannot signal a runtime's own tool call mid-run, nor see its runs but through its
agents.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.spec import Capability, StopReason

from ...core.gateway import ModelFailure, Reply
from ...core.protocol import ModelReply, ModelRequest, RunResult
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ..planning import delegates
from ._nonce import nonce
from ._starts import marker, provider_name, start_request

#: The stop reasons a child's model is scripted to end with, the first being a completed run.
#: ``aborted`` is not among them: nothing on a model's wire aborts a run (the configurable
#: tool's abort is judged on that tool).
REASONS = (StopReason.COMPLETED, StopReason.MAX_TOKENS, StopReason.REFUSAL, StopReason.ERROR)
#: Replies a child is scripted with: a runtime may answer a stop by asking again (Claude Code
#: continues a turn cut by max_tokens), and every request of the child meets the same stop.
REPEAT = 12


def _partition(reason: StopReason) -> str:
    return ("own-tool-completed" if reason is StopReason.COMPLETED
            else f"own-tool-stopped-{reason.value}")


def _reply(reason: StopReason, said: str) -> Reply:
    """The child's model's answer: its output with ``reason``; for ``error``, no answer: the
    request fails for good (HTTP 400: a runtime retries a 500 for as long as it likes, opencode
    past any check's time), as a model that failed."""
    if reason is not StopReason.ERROR:
        return ModelReply(text=f"child output {said}", stopReason=reason)

    def failed(request: ModelRequest) -> ModelReply:
        raise ModelFailure(f"the scripted model failed (ST-09) {said}")

    return failed


OWN_RUNS = tuple(Partition("ST-09", _partition(r), (
    "a child that completed: the parent's call of the provider's own delegation tool gets its "
    "output, not an error" if r is StopReason.COMPLETED else
    f"a child whose model stopped with {r.value} at every request: the parent's call of the "
    "provider's own delegation tool gets an errored result")) for r in REASONS)


@check("ST-09", name="delegation-tool-run-result", partitions=OWN_RUNS)
def own_tool_run_result(ctx: CheckContext) -> None:
    """A child whose model ends its turn with each stop reason, started through the provider's
    own delegation tool: what the parent's call got is errored exactly when the child did not
    complete, and a completed child's output reaches it. Each start carries a spawn policy
    that refuses nothing where the provider advertises spawnPolicy (as delegation_tool_cap.py
    does)."""
    assert ctx.provider is not None, "ST-09 runs per provider"
    tool = ctx.provider.delegationTool
    if not tool or not delegates(ctx.target.info(), ctx.provider, capped=False):
        ctx.inapplicable("ST-09", *(p.name for p in OWN_RUNS))
        return
    provider = provider_name(ctx)
    neutral: dict[str, Any] = ({"spawnPolicy": {"deny": []}}
                               if Capability.SPAWN_POLICY in ctx.provider.capabilities else {})

    def started(reason: StopReason) -> tuple[RunResult, str]:
        dep = ctx.deploy()  # before the script: a deployment has a gateway of its own
        label, said = marker(ctx, f"st09-{reason.value}"), nonce(ctx, f"said-{reason.value}")
        ctx.gateway.script(label, *[_reply(reason, said)] * REPEAT, required=False)
        with ctx.step("ST-09", f"starting a child whose model stops with {reason.value}"):
            run = dep.start(start_request(dep.root().agent, provider, f"child {label}",
                                          neutral))
        asked = len(ctx.gateway.requests_for(label))
        ctx.expect("ST-09", asked > 0, f"a start through {tool} was accepted, yet no child "
                   "asked its model", "a child's model request", asked)
        return run, said

    # one part: a target reports the parent's result for every start or for none
    with ctx.expressible("ST-09", *(p.name for p in OWN_RUNS)):
        for reason in REASONS:
            run, said = started(reason)
            got = run.delegated
            if got is None:
                raise Unsupported(f"the result of a call of {tool}", tool,
                                  f"the target does not report what its parent's call of {tool}"
                                  " got (RunResult.delegated), so a child's stop cannot be "
                                  "read in it")
            if reason is StopReason.COMPLETED:
                ctx.expect("ST-09", not got.isError and said in str(got.content),
                           f"a child that completed must give the parent's call of {tool} its "
                           "output, not an error", {"isError": False, "content": said},
                           got.model_dump())
            else:
                ctx.expect("ST-09", got.isError,
                           f"a child whose model stopped with {reason.value} must give the "
                           f"parent's call of {tool} an errored result (isError), not its "
                           "partial output as success", {"isError": True}, got.model_dump())
            ctx.drew("ST-09", _partition(reason))
