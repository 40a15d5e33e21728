"""Shared helpers for checks: snapshots, views as sets, child composition per edition, starts.

Small and stable on purpose (its API is listed in ``/work/notes/checks-support.md``). Nothing
here decides a rule: the helpers observe through the :class:`~..target.Deployment` protocol
and compute expectations with the spec oracle; checks call ``ctx.expect``/``ctx.fail``.

- :class:`Snapshot` / :func:`snapshot` / :func:`expect_unchanged`: "a rejection changes
  nothing" (DE-04, DE-05..08, CA-02, CA-05, TF-07, TF-08) judged over sessions, published
  agents, lifecycle events, tool invocations and model requests.
- :func:`view_set` / :func:`oracle_view`: views compared as sets of ``(name, origin)`` (RULES.md
  TF note: order is free).
- :func:`composition`: where a child's persona, tool filter and output schema go in the run's
  edition (a preset in ``preset-composition``, the request in ``request-controls``).
- :func:`start_state` / :func:`expected_start`: the oracle's answer for a start as the
  deployment stands.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.spec import (
    ABSENT,
    Edition,
    PresentationMode,
    Preset,
    StartOutcome,
    StartState,
    TckError,
    check_depth,
    decide_start,
    resolve_view,
    validate_restriction,
)

from ..check import CheckContext
from ..gateway import Gateway
from ..protocol import Observation, PresetSpec, SessionHeader, StartRequest
from ..target import Deployment
from ._names import names_token

_COUNTER = itertools.count(1)

#: The name :func:`composition` gives the preset it makes in the preset-composition edition.
PRESET_NAME = "tck-composition"


def marker(label: str) -> str:
    """A unique string to place in a prompt so that the gateway can script that agent."""
    return f"[tck:{label}:{next(_COUNTER)}]"


# --- snapshots ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything a rejected operation must leave unchanged, as plain JSON values."""

    sessions: tuple[Any, ...]
    agents: tuple[str, ...]
    events: tuple[Any, ...]
    invocations: tuple[Any, ...]
    requests: int

    def differences(self, other: Snapshot) -> list[str]:
        """The parts that differ between two snapshots, named for a failure message."""
        out = []
        for part in ("sessions", "agents", "events", "invocations"):
            mine, theirs = getattr(self, part), getattr(other, part)
            if mine != theirs:
                out.append(f"{part}: {len(mine)} -> {len(theirs)}")
        if self.requests != other.requests:
            out.append(f"model requests: {self.requests} -> {other.requests}")
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


def snapshot(deployment: Deployment, gateway: Gateway) -> Snapshot:
    seen = observe(deployment)
    return Snapshot(
        tuple(h.model_dump(mode="json") for h in seen.sessions),
        tuple(sorted(seen.agents)),
        tuple(e.model_dump(mode="json") for e in seen.events),
        tuple(i.model_dump(mode="json") for i in seen.invocations),
        len(gateway.requests()),
    )


def expect_unchanged(
    ctx: CheckContext, rule: str, before: Snapshot, deployment: Deployment, what: str
) -> bool:
    """``rule`` holds iff nothing observable changed since ``before`` (uses ``ctx.gateway``)."""
    after = snapshot(deployment, ctx.gateway)
    changed = before.differences(after)
    return ctx.expect(
        rule,
        not changed,
        f"{what} left traces: " + "; ".join(changed),
        "nothing created: no session, agent, event, tool invocation or model request",
        {"changed": changed, "events": list(after.events[len(before.events):])},
    )


# --- views -------------------------------------------------------------------------------


def view_set(entries: Iterable[Any]) -> frozenset[tuple[str, str]]:
    """A view (protocol or spec entries) as a set of ``(name, origin)``."""
    return frozenset((e.name, _value(e.origin)) for e in entries)


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


def _value(item: Any) -> str:
    return str(getattr(item, "value", item))


# --- composition and starts --------------------------------------------------------------


@dataclass(frozen=True)
class Composition:
    """Where a child's controls go: ``presets`` for the deployment config, ``fields`` for the
    start request (see :func:`composition`)."""

    presets: list[PresetSpec] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)

    def oracle_presets(self) -> dict[str, Preset]:
        return {
            p.name: Preset(p.persona, p.toolFilter, p.outputSchema) for p in self.presets
        }


def composition(
    edition: Edition,
    *,
    persona: object = ABSENT,
    tool_filter: object = ABSENT,
    output_schema: object = ABSENT,
) -> Composition:
    """Put the given controls in a preset (preset-composition: the request names the preset)
    or in the request itself (request-controls). ``maxDepth`` always goes in the request."""
    given = {
        k: v
        for k, v in (("persona", persona), ("toolFilter", tool_filter),
                     ("outputSchema", output_schema))
        if v is not ABSENT
    }
    if not given:
        return Composition()
    if edition is Edition.PRESET_COMPOSITION:
        return Composition([PresetSpec(name=PRESET_NAME, **given)], {"preset": PRESET_NAME})
    return Composition([], dict(given))


def start_request(
    parent: str, provider: object, prompt: str, fields: Mapping[str, Any] | None = None
) -> StartRequest:
    """A start request with exactly ``fields`` set (absent controls stay absent)."""
    return StartRequest(parent=parent, provider=provider, prompt=prompt, **dict(fields or {}))


def start_state(
    ctx: CheckContext,
    *,
    global_names: Sequence[str] = (),
    presets: Mapping[str, Preset] | None = None,
    parent_header: object = 0,
    parent_runtime: object = ABSENT,
    deployment_persona: str | None = None,
    variables: Mapping[str, str] | None = None,
) -> StartState:
    """The oracle's view of the deployment for a start (providers from the run's target)."""
    return StartState(
        edition=ctx.edition,
        providers={p.name: list(p.capabilities) for p in ctx.providers},
        global_names=tuple(global_names),
        presets=dict(presets or {}),
        variables=dict(variables or {}),
        deployment_persona=deployment_persona,
        parent_header_depth=parent_header,
        parent_runtime_depth=parent_runtime,
    )


def expected_start(state: StartState, request: StartRequest) -> StartOutcome:
    return decide_start(state, {"provider": request.provider, "prompt": request.prompt,
                                **request.controls()})


def header_of(deployment: Deployment, session: str) -> SessionHeader | None:
    return next((h for h in deployment.sessions() if h.session == session), None)


def header_depth(header: SessionHeader | None) -> int | None:
    """A header's ``delegationDepth`` as the oracle reads it (None: absent or out of domain)."""
    return None if header is None else check_depth(header.delegationDepth).value


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
