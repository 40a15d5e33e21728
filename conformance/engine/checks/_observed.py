"""What a check reads of a deployment, as values it can compare; nothing here decides a rule.

- :class:`Snapshot` / :func:`snapshot` / :func:`expect_unchanged`: "a rejection changes
  nothing" (DE-04..08, CA-02, CA-05, TF-07, TF-08, FR-02, FR-03, FR-04, EN-02, PE-03) judged
  over sessions, published agents, lifecycle events, tool invocations, model requests and, for
  the agents a check names, their views and prompts.
- :func:`view_set` / :func:`oracle_view` / :func:`view_pairs`: views compared as sets of
  ``(name, origin)`` (docs/rules.md#TF-01: order is free).
- :func:`sections_of`, :func:`message_text`, :func:`request_text`, :func:`missing_names`: what
  a target reports (prompts, the text of a model request, the names an error lists).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.spec import PresentationMode, TckError, resolve_view, validate_restriction
from subagent_tck.spec.persona import NamedText

from ...core.gateway import Gateway
from ...core.protocol import ModelRequest, Observation
from ...core.target import Deployment
from ..check import CheckContext
from ._names import names_token

# --- snapshots ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything a rejected operation must leave unchanged, as plain JSON values; ``views``
    and ``prompts`` of the agents named when it was taken (``watched``)."""

    sessions: tuple[Any, ...]
    agents: tuple[str, ...]
    events: tuple[Any, ...]
    invocations: tuple[Any, ...]
    requests: int
    watched: tuple[str, ...] = ()
    views: Mapping[str, Any] = field(default_factory=dict)
    prompts: Mapping[str, Any] = field(default_factory=dict)

    def changes(self, other: Snapshot) -> dict[str, Any]:
        """What differs in ``other``, part by part (empty: nothing changed)."""
        out: dict[str, Any] = {}
        for part in ("sessions", "agents", "events", "invocations", "requests", "views",
                     "prompts"):
            before, after = getattr(self, part), getattr(other, part)
            if before != after:
                out[part] = {"before": before, "after": after}
        return out

    def differences(self, other: Snapshot) -> list[str]:
        """The parts that differ between two snapshots, named for a failure message."""
        out = []
        for part in self.changes(other):
            mine, theirs = getattr(self, part), getattr(other, part)
            if part == "requests":
                out.append(f"model requests: {mine} -> {theirs}")
            elif part in ("views", "prompts"):
                moved = sorted(a for a in self.watched if mine.get(a) != theirs.get(a))
                out.append(f"{part} of {', '.join(moved)}")
            else:
                out.append(f"{part}: {len(mine)} -> {len(theirs)}")
        return out


def observe(deployment: Deployment) -> Observation:
    """Sessions, agents, events and invocations in one call (one round trip over HTTP); a
    Python target written before ``observe`` joined the protocol is read four times."""
    method = getattr(deployment, "observe", None)
    if method is not None:
        observed: Observation = method()
        return observed
    return Observation(sessions=deployment.sessions(), agents=deployment.agents(),
                       events=deployment.events(), invocations=deployment.invocations())


def snapshot(deployment: Deployment, gateway: Gateway, agents: Iterable[str] = ()) -> Snapshot:
    """Observe the deployment; ``agents``: whose view and prompt to record as well."""
    watched = tuple(agents)
    seen = observe(deployment)
    return Snapshot(
        tuple(h.model_dump(mode="json") for h in seen.sessions),
        tuple(sorted(seen.agents)),
        tuple(e.model_dump(mode="json") for e in seen.events),
        tuple(i.model_dump(mode="json") for i in seen.invocations),
        len(gateway.requests()),
        watched,
        {a: view_pairs(deployment.view(a)) for a in watched},
        {a: sections_of(deployment, a) for a in watched},
    )


def expect_unchanged(
    ctx: CheckContext, rule: str, before: Snapshot, deployment: Deployment, what: str,
    unrelated: Iterable[str] = (),
) -> bool:
    """``rule`` holds iff nothing observable changed since ``before`` (uses ``ctx.gateway``;
    the agents ``before`` watched are watched again). Model requests of the ``unrelated``
    agents (ones the operation does not address, which may still be finishing earlier work on
    a target whose children run asynchronously) are no trace of it."""
    after = snapshot(deployment, ctx.gateway, before.watched)
    others = set(unrelated)
    if others:
        # only the requests the snapshot counted: one that arrives after it (an unrelated
        # agent's, still finishing) must not be taken off the count twice (seen on DSH's
        # continuable path under load: "model requests: 1 -> 0" for a target that made none)
        counted = ctx.gateway.requests()[before.requests:after.requests]
        late = sum(1 for r in counted if r.agent in others)
        after = dataclasses.replace(after, requests=after.requests - late)
    changed = before.differences(after)
    return ctx.expect(
        rule,
        not changed,
        f"{what} left traces: " + "; ".join(changed),
        "nothing created: no session, agent, event, tool invocation or model request"
        + (", and the watched agents' views and prompts as they were" if before.watched else ""),
        {"changed": changed, "events": list(after.events[len(before.events):]),
         # who made the requests since: a late one from an earlier step or one of the operation
         "new model requests": [{"agent": r.agent, "messages": len(r.messages)}
                                for r in ctx.gateway.requests()[before.requests:]]},
        # the baseline's name for it: which traces a target that runs children on its own
        # time has left by the moment they are counted is its timing (docs/baseline.md)
        key=f"{what} left traces",
    )


# --- views -------------------------------------------------------------------------------


def view_set(entries: Iterable[Any]) -> frozenset[tuple[str, str]]:
    """A view (protocol or spec entries) as a set of ``(name, origin)``."""
    return frozenset((e.name, _value(e.origin)) for e in entries)


def view_pairs(entries: Iterable[Any]) -> list[list[str]]:
    """A view (observed entries or oracle entries) as sorted ``[name, origin]`` pairs."""
    return sorted([e.name, _value(e.origin)] for e in entries)


def duplicate_names(entries: Iterable[Any]) -> list[str]:
    """Names offered more than once (a view has one entry per name)."""
    seen: set[str] = set()
    dup: list[str] = []
    for e in entries:
        if e.name in seen and e.name not in dup:
            dup.append(e.name)
        seen.add(e.name)
    return dup


def oracle_view(
    global_names: Sequence[str],
    restrictions: Iterable[object],
    local_names: Sequence[str] = (),
    mode: PresentationMode = PresentationMode.NATIVE,
    *,
    valid_over: Sequence[str] | None = None,
) -> frozenset[tuple[str, str]]:
    """The oracle's view as a set; ``restrictions`` are raw values, each valid over
    ``valid_over`` (the globals registered when it was installed; default ``global_names``)."""
    over = global_names if valid_over is None else valid_over
    parsed = []
    for raw in restrictions:
        verdict = validate_restriction(raw, over)
        if verdict.restriction is None:
            raise ValueError(f"check bug: restriction {raw!r} is invalid: {verdict.reason}")
        parsed.append(verdict.restriction)
    return view_set(resolve_view(global_names, parsed, local_names, mode))


def wire_names(request: ModelRequest) -> list[str]:
    return sorted(t.name for t in request.tools)


def _value(item: Any) -> str:
    return str(getattr(item, "value", item))


# --- reading what a target reports -------------------------------------------------------


def sections_of(deployment: Deployment, agent: str) -> list[list[str]]:
    """Prompt inspection as ``[[name, text], ...]`` (comparable with :func:`as_pairs`)."""
    return [[s.name, s.text] for s in deployment.prompt(agent)]


def as_pairs(sections: Iterable[NamedText]) -> list[list[str]]:
    return [[s.name, s.text] for s in sections]


def message_text(request: ModelRequest) -> str:
    """What a request carries outside its system text (messages and context notices): every
    string inside a message's content, as the model reads it (a block list is walked, not
    serialised, so quotes, newlines and non-ASCII text stay as written and are found)."""
    parts = list(request.context)

    def walk(value: object) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, (list, tuple)):
            for inner in value:
                walk(inner)
        elif value is not None:
            parts.append(str(value))
    for message in request.messages:
        walk(message.content)
    return "\n".join(parts)


def request_text(request: ModelRequest) -> str:
    """Everything a model request carries as text: system, messages, context notices."""
    return "\n".join((request.system, message_text(request)))


def named(token: str, message: str) -> bool:
    """Whether an error message names a placeholder: the token itself or its inner name."""
    inner = token.strip().strip("{}").strip()
    return token in message or (bool(inner) and inner in message)


def missing_names(exc: TckError, names: Iterable[str], key: str = "offending") -> list[str]:
    """The names an error fails to list: in ``details[key]`` when the error has that key, else
    in its message as whole words."""
    listed = exc.details.get(key)
    if isinstance(listed, (list, tuple)):
        have = {str(n) for n in listed}
        return [n for n in names if n not in have]
    # Whole tokens of the tool-name grammar (``_names``): ``read`` is not listed by a message
    # that names only ``read_file``, ``read-2`` or ``Read``.
    return [n for n in names if not re.search(names_token(n), exc.message)]
