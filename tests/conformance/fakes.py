"""Fake rules, checks and targets for the runner's own tests (independent of the real ones).

Loaded under the module name :data:`NAME` (see ``tests/cli_helpers.py``), so that target specs
such as ``python:subagent_tck_test_fakes:healthy`` work in CLI tests. A fake target's ``behaviour``
maps ``(rule, provider)`` to what the fake check sees for that rule: ``"break"`` (the target
violates it), ``"break-also"`` (it violates it in a second assertion too), ``"crash"`` (the
target raises), ``"refuse"`` (an unexpected TckError),
``"protocol"`` (a PROTOCOL_ERROR), ``"reset-step"`` and ``"reset-refusal"`` (the connection
or the protocol breaks inside a step, or where a refusal is awaited), ``"hang"``, ``"skip"``,
``"silent"`` (the check never verifies it), ``"unconsumed"`` (a scripted reply the target
never asks for), ``"trap"`` (the same, for a script marked ``required=False``),
``"unsupported"`` (the target answers UNSUPPORTED_OPERATION for an optional operation),
``"die"`` (the worker process of ``certify --jobs`` running the check ends) and ``"stuck"``
(that worker stops where its own timeout cannot reach it: SIGSTOP); outside a worker process
the last two raise instead, so that they never take the test process down.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterable, Mapping
from typing import Any, cast

from subagent_tck.conformance.core.gateway import Gateway, text
from subagent_tck.conformance.core.protocol import DeploymentConfig, ProviderInfo, TargetInfo
from subagent_tck.conformance.engine import check as check_module
from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.runner import Suite
from subagent_tck.spec import (
    RULES_BY_ID,
    Capability,
    Component,
    Edition,
    ErrorCode,
    Family,
    Level,
    Rule,
    Source,
    TckError,
)

NAME = "subagent_tck_test_fakes"
#: What the fake target says when it cannot express an operation (hostile: it must be escaped).
UNSUPPORTED_MESSAGE = "no cold resume here \x1b]8;;http://x\x07link"
RELEASE = threading.Event()  # set to free hung checks at the end of a test
IN_WORKER = False  # set in a worker process of certify --jobs (worker_target)


def _rule(rule_id: str, level: Level = Level.MUST, capability: Capability | None = None,
          component: Component | None = None, edition: Edition | None = None) -> Rule:
    return Rule(
        id=rule_id, slug=f"fake-{rule_id[-2:]}", family=Family(rule_id[:2]), level=level,
        capability=capability, component=component, edition=edition,
        statement=f"fake rule {rule_id}", rationale="for the runner's tests",
        source=Source(document="RULES.md", section="tests"),
    )


RULES: tuple[Rule, ...] = (
    _rule("TF-91", capability=Capability.TOOL_FILTER),
    _rule("TF-92", capability=Capability.TOOL_FILTER),
    _rule("TF-93", Level.SHOULD, capability=Capability.TOOL_FILTER),
    _rule("PE-91", capability=Capability.PERSONA),
    _rule("DE-91"),
    _rule("DE-92", capability=Capability.DEPTH_LIMIT),
    _rule("CA-91"),
    _rule("EN-91", edition=Edition.PRESET_COMPOSITION),
    _rule("EN-92", edition=Edition.REQUEST_CONTROLS),
    _rule("ST-91", component=Component.SUBAGENT_TOOL),
    _rule("FR-91"),
)


class FakeDeployment:
    def __init__(self, target: FakeTarget, gateway: Gateway) -> None:
        self.target, self.gateway = target, gateway
        self.closed = False

    def resume(self, session: str) -> None:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, UNSUPPORTED_MESSAGE)

    def close(self) -> None:
        self.closed = True
        self.target.open_deployments -= 1


class FakeTarget:
    """A target whose misbehaviour per (rule, provider) is given up front."""

    def __init__(self, behaviour: Mapping[tuple[str, str | None], str] | None = None, *,
                 providers: Iterable[ProviderInfo] | None = None,
                 editions: Iterable[Edition] = (Edition.PRESET_COMPOSITION,),
                 components: Iterable[Component] = (Component.SUBAGENT_TOOL,),
                 info_error: Exception | None = None, serial: str | None = None) -> None:
        self.behaviour = dict(behaviour or {})
        self.providers = list(providers if providers is not None else default_providers())
        self.editions = list(editions)
        self.components = list(components)
        self.info_error = info_error
        self.serial = serial
        self.open_deployments = 0
        self.closed = False

    def info(self) -> TargetInfo:
        if self.info_error is not None:
            raise self.info_error
        return TargetInfo(name="fake", version="9.9", editions=self.editions,
                          components=self.components, providers=self.providers,
                          serial=self.serial)

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> FakeDeployment:
        self.open_deployments += 1
        return FakeDeployment(self, gateway)

    def close(self) -> None:
        self.closed = True

    def what(self, rule: str, provider: ProviderInfo | None) -> str:
        name = provider.name if provider else None
        return self.behaviour.get((rule, name), self.behaviour.get((rule, "*"), "ok"))


#: The controls the fake ``spawn`` advertises: those of the fake rules' families (and
#: outputSchema, which no fake rule judges).
FAKE_CONTROLS = (Capability.DEPTH_LIMIT, Capability.PERSONA, Capability.TOOL_FILTER,
                 Capability.OUTPUT_SCHEMA)


def default_providers() -> list[ProviderInfo]:
    return [
        ProviderInfo(name="spawn", capabilities=list(FAKE_CONTROLS)),
        ProviderInfo(name="acp", capabilities=[]),
    ]


def fake_check(ctx: CheckContext) -> None:
    """Decide each cited rule as the fake target says it behaves."""
    # a FakeTarget, or one the runner wraps (certify --timings): its own methods pass through
    target = cast(FakeTarget, ctx.target)
    dep = ctx.deploy()
    for rule in ctx.check.rules:
        what = target.what(rule, ctx.provider)
        if what == "ok":
            ctx.expect(rule, True, "fine")
        elif what == "break":
            ctx.expect(rule, False, f"{rule} broken", expected="a", observed="b",
                       example="state-1")
        elif what == "break-also":  # the same, and a second assertion of the rule fails too
            ctx.expect(rule, False, f"{rule} broken", expected="a", observed="b",
                       example="state-1")
            ctx.expect(rule, False, f"{rule} broken once more", expected=["a"],
                       observed=["a", "c"])
        elif what == "crash":
            raise RuntimeError(f"target exploded on {rule}")
        elif what == "refuse":
            raise TckError(ErrorCode.INVALID_REQUEST, f"refused {rule}")
        elif what == "protocol":
            raise TckError(ErrorCode.PROTOCOL_ERROR, f"garbage answer on {rule}")
        elif what == "reset-step":  # the connection breaks in the middle of a step
            with ctx.step(rule, "starting a child"):
                raise TckError(ErrorCode.TARGET_UNREACHABLE, "connection reset by peer")
        elif what == "reset-refusal":  # ... where the check waits for a refusal
            def reset() -> None:
                raise TckError(ErrorCode.PROTOCOL_ERROR, "the answer is not JSON")

            ctx.expect_error(rule, ErrorCode.INVALID_TOOL_FILTER, reset, "a bad filter")
        elif what == "hang":
            RELEASE.wait(30)
        elif what in ("die", "stuck"):
            if not IN_WORKER:
                raise RuntimeError(f"{what} asked of a check outside a worker process")
            if what == "die":
                os._exit(7)
            os.kill(os.getpid(), signal.SIGSTOP)
        elif what == "unsupported":  # an optional operation the target cannot express
            dep.resume("stored-session")
        elif what == "skip":
            ctx.skip(rule, "nothing to refuse here")
        elif what == "unconsumed":
            ctx.gateway.script("marker-never-asked", text("hello"))
            ctx.expect(rule, True, "fine")
        elif what == "trap":  # a child that must not run, scripted only to catch it
            ctx.gateway.script("marker-must-not-run", text("hello"), required=False)
            ctx.expect(rule, True, "fine")
        # "silent": the check never verifies the rule


CHECKS: dict[str, Check] = {
    "fake-filter": Check("fake-filter", ("TF-91", "TF-92", "TF-93"), fake_check),
    "fake-persona": Check("fake-persona", ("PE-91",), fake_check),
    "fake-depth": Check("fake-depth", ("DE-91", "DE-92"), fake_check),
    "fake-gating": Check("fake-gating", ("CA-91",), fake_check),
    "fake-preset": Check("fake-preset", ("EN-91",), fake_check,
                         edition=Edition.PRESET_COMPOSITION),
    "fake-request": Check("fake-request", ("EN-92",), fake_check,
                          edition=Edition.REQUEST_CONTROLS),
    "fake-tool": Check("fake-tool", ("ST-91",), fake_check, per_provider=False),
    "fake-first": Check("fake-first", ("FR-91",), fake_check, per_provider=False),
}

SUITE = Suite(RULES, CHECKS)


def install(monkeypatch: Any) -> Suite:
    """Make the fake suite the default one and its rules known to check contexts."""
    titles = {**RULES_BY_ID, **{r.id: r for r in RULES}}
    monkeypatch.setattr(check_module, "RULES_BY_ID", titles)
    monkeypatch.setattr(Suite, "default", classmethod(lambda cls: SUITE))
    return SUITE


# --- a recipe for the worker processes of certify --jobs (tests/conformance/test_jobs.py) ----
# Pickled by name: the worker imports this module as ``conformance.fakes`` (tests/ is on the
# path pytest hands its processes), not under NAME.


def worker_target(behaviour: tuple[tuple[tuple[str, str | None], str], ...] = (),
                  serial: str | None = None, fail: str | None = None) -> FakeTarget:
    """The FakeTarget of a test, made again in a worker process (``fail``: it cannot be)."""
    global IN_WORKER
    if fail is not None:
        raise RuntimeError(fail)
    IN_WORKER = True
    check_module.RULES_BY_ID = {**RULES_BY_ID, **{r.id: r for r in RULES}}  # type: ignore[misc]
    return FakeTarget(dict(behaviour), serial=serial)


def worker_suite() -> Suite:
    return SUITE


# --- factories for python:subagent_tck_test_fakes:NAME ------------------------------------


def healthy() -> FakeTarget:
    return FakeTarget()


def broken_filter() -> FakeTarget:
    return FakeTarget({("TF-92", "spawn"): "break"})


def inexpressible_filter() -> FakeTarget:
    return FakeTarget({("TF-92", "*"): "unsupported"})


def crashing() -> FakeTarget:
    return FakeTarget({(r.id, "*"): "protocol" for r in RULES})


def unreachable() -> FakeTarget:
    return FakeTarget(info_error=ConnectionError("connection refused"))


def request_only() -> FakeTarget:
    return FakeTarget(editions=[Edition.REQUEST_CONTROLS])
