"""The judge of one promise (docs/promises.md): what the child got on the model wire and what
became of the calls forged in its turn, one :class:`~..core.promises_report.PromiseItem` per
aspect.

``persona``, ``tools``, ``schema:NAME`` and ``model`` are read from the child's requests;
``refuses:calls`` and ``refuses:delegation`` from the results of the forged calls, the tool
bodies that ran and the sessions published. A child that never asks its model breaks
``persona`` and ``tools`` and says so.
"""

from __future__ import annotations

from typing import Any

from ..core.gateway import Exchange
from ..core.promises_file import Promise, PromisesFile
from ..core.promises_report import PromiseItem, Status
from ..core.protocol import ModelRequest
from ..core.target import Deployment
from .promise_scripts import CHILD, DELEGATE_CALL, OTHER, PromiseGateway, forbidden_tools


def _tool_result(exchanges: list[Exchange], call_id: str) -> dict[str, Any] | None:
    for exchange in exchanges:
        for message in exchange.request.messages:
            if message.role == "tool" and message.toolCallId == call_id:
                return {"isError": message.isError, "content": message.content}
    return None


def _collapse(found: dict[str, list[int]], total: int) -> str:
    """Problems seen in several requests as one phrase each: "in request(s) 1, 2 of 3"."""
    return "; ".join(f"{p} (in request {', '.join(map(str, ns))} of {total})"
                     for p, ns in found.items())


def _names(request: ModelRequest) -> list[str]:
    return [t.name for t in request.tools]


class _Judge:
    def __init__(self, file: PromisesFile, promise: Promise, replay: str) -> None:
        self.file = file
        self.promise = promise
        self.replay = replay
        self.items: list[PromiseItem] = []
        self.exchange: list[dict[str, Any]] = []

    def add(self, aspect: str, status: Status, message: str, expected: Any = None,
            observed: Any = None) -> None:
        self.items.append(PromiseItem(
            promise=self.promise.id, aspect=aspect, status=status, message=message,
            expected=expected, observed=observed, replay=self.replay,
            exchange=self.exchange if status != "kept" else [],
        ))

    def judged(self, aspect: str, problems: list[str], kept: str, expected: Any,
               observed: Any) -> None:
        """``aspect`` broken by ``problems`` (each one said), or kept (``kept`` says how)."""
        if problems:
            self.add(aspect, "broken", "; ".join(problems), expected, observed)
        else:
            self.add(aspect, "kept", kept, expected, observed)


def _unrefused(result: dict[str, Any] | None, tool: str, call: str) -> list[str]:
    """What is wrong with ``result``, the answer to a forged call (``call``) of ``tool``: none
    came back, or it was no refusal."""
    if result is None:
        return [f"no result came back for the forged call of {tool!r}"]
    return [] if result["isError"] else [f"{call} of {tool!r} was not refused"]


def _judge_wire(judge: _Judge, requests: list[ModelRequest]) -> None:
    promise, file = judge.promise, judge.file
    never_asked = "the child never made a model request, so nothing it got can be shown"
    if promise.persona is not None:
        if not requests:
            judge.add("persona", "broken", never_asked, expected=promise.persona.contains,
                      observed=None)
        else:
            seen_problems: dict[str, list[int]] = {}
            for n, request in enumerate(requests, start=1):
                missing = [t for t in promise.persona.contains if t not in request.system]
                if missing:
                    seen_problems.setdefault(f"the child's prompt lacks {missing}",
                                             []).append(n)
                if promise.persona.parent_absent and file.deployment.persona in request.system:
                    seen_problems.setdefault("the child's prompt carries the parent's persona",
                                             []).append(n)
            problems = [_collapse(seen_problems, len(requests))] if seen_problems else []
            expected = {"contains": promise.persona.contains,
                        "absent": [file.deployment.persona] if promise.persona.parent_absent
                        else []}
            if problems:
                judge.add("persona", "broken", "; ".join(problems), expected=expected,
                          observed=requests[0].system)
            else:
                judge.add("persona", "kept", "every child request carries the persona",
                          expected=expected)
    if promise.tools is not None:
        want = promise.tools
        expected = want.model_dump(exclude_defaults=True)
        if not requests:
            judge.add("tools", "broken", never_asked, expected=expected, observed=None)
        else:
            tally: dict[str, list[int]] = {}
            for n, request in enumerate(requests, start=1):
                bad: list[str] = []
                got = _names(request)
                seen = set(got)
                if want.exactly is not None and (seen != set(want.exactly)
                                                 or len(got) != len(seen)):
                    extra = sorted(seen - set(want.exactly))
                    lacking = sorted(set(want.exactly) - seen)
                    bad.append(f"the child got {sorted(got)} (extra {extra}, "
                                    f"missing {lacking})")
                lacking = sorted(set(want.at_least) - seen)
                if lacking:
                    bad.append(f"the child lacks {lacking}")
                banned = sorted(set(want.never) & seen)
                if banned:
                    bad.append(f"the child got forbidden {banned}")
                for problem in bad:
                    tally.setdefault(problem, []).append(n)
            problems = [_collapse(tally, len(requests))] if tally else []
            observed = sorted(_names(requests[0]))
            judge.judged("tools", problems, f"the child saw {observed}", expected, observed)
    for name, schema in promise.schemas.items():
        aspect = f"schema:{name}"
        if not requests:
            judge.add(aspect, "broken", never_asked, schema, None)
            continue
        found = next((t for t in requests[0].tools if t.name == name), None)
        if found is None:
            judge.add(aspect, "broken", f"the child's first request has no tool {name!r}",
                      schema, None)
        elif found.parameters != schema:
            judge.add(aspect, "broken", f"the child's {name!r} has other parameters", schema,
                      found.parameters)
        else:
            judge.add(aspect, "kept", f"the child's {name!r} has the promised parameters",
                      schema, found.parameters)
    if promise.model is not None:
        _judge_model(judge, requests, never_asked)


def _judge_model(judge: _Judge, requests: list[ModelRequest], never_asked: str) -> None:
    """``model``: every child request names exactly the promised model (the chat body's
    ``model``, docs/driver-api.md "Model gateway"). A target that reports none cannot show the
    promise: an error saying so, never a pass."""
    want = judge.promise.model
    if not requests:
        judge.add("model", "broken", never_asked, want, None)
        return
    seen = [r.model for r in requests]
    if all(m is None for m in seen):
        judge.add("model", "error", "the target never reported the model its child runs with "
                  "(each chat request's model was the placeholder or absent), so this promise "
                  "cannot be shown: the runtime must send the child's model in the chat body",
                  want, None)
        return
    tally: dict[str, list[int]] = {}
    for n, model in enumerate(seen, start=1):
        if model != want:
            got = "no model" if model is None else f"model {model!r}"
            tally.setdefault(f"the child asked for {got}", []).append(n)
    observed = sorted({m for m in seen if m is not None})
    if tally:
        judge.add("model", "broken", _collapse(tally, len(seen)), want,
                  observed[0] if len(observed) == 1 else observed)
    else:
        judge.add("model", "kept", f"every child request asked for {want!r}", want, want)


def _judge_refusals(judge: _Judge, deployment: Deployment, gateway: PromiseGateway,
                    child: list[Any]) -> None:
    promise = judge.promise
    child_agent = gateway.agent_of(CHILD)
    observation = deployment.observe()
    forged = forbidden_tools(judge.file, promise) if promise.refuses.calls else []
    if forged:
        if not child:
            judge.add("refuses:calls", "error", "the child never asked its model, so no call "
                      "could be forged in its turn", forged, None)
        else:
            problems, seen = [], {}
            for i, name in enumerate(forged):
                result = _tool_result(child, f"forged-{i}")
                ran = [v.arguments for v in observation.invocations
                       if v.tool == name and v.agent == child_agent]
                seen[name] = {"result": result, "bodyRan": bool(ran)}
                problems += _unrefused(result, name, "the call")
                if ran:
                    problems.append(f"the body of {name!r} ran")
            expected = {n: {"isError": True, "bodyRan": False} for n in forged}
            judge.judged("refuses:calls", problems, f"{len(forged)} forged call(s) refused, no "
                         "body ran", expected, seen)
    if promise.refuses.delegation:
        tool = promise.trigger.tool
        if not child:
            judge.add("refuses:delegation", "error", "the child never asked its model, so no "
                      "further delegation could be forged", f"{tool!r} refused", None)
            return
        result = _tool_result(child, DELEGATE_CALL)
        session = next((e.session for e in observation.events
                        if e.kind == "agent.published" and e.agent == child_agent), None)
        grandchildren = [h.session for h in observation.sessions
                         if session is not None and h.parent == session]
        others = gateway.of(OTHER)
        problems = _unrefused(result, tool, "the child's call")
        if grandchildren:
            problems.append(f"a grandchild was published: {grandchildren}")
        if others:
            problems.append(f"{len(others)} model request(s) came from a grandchild")
        judge.judged("refuses:delegation", problems, f"the child's {tool!r} call was refused "
                     "and published nothing", {"isError": True, "grandchildren": []},
                     {"result": result, "grandchildren": grandchildren})
