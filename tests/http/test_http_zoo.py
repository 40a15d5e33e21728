"""Broken providers fail the same rules over HTTP as in-process (docs/architecture.md: a
certifier that certifies a broken provider is worse than none, whatever the transport).

A sample of the zoo (examples/providers), one entry per rule family, is served behind the
driver API on 127.0.0.1 and certified through it, restricted to the rules the entry breaks;
every outcome must equal the in-process one, and the broken rule must fail.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.spec import RULES_BY_ID

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ["deny_before_allow", "cap_not_validated", "persona_as_second_channel",
          "provider_called_before_gate", "run_code_after_first_request", "abort_not_bridged",
          "request_persona_accepted", "run_code_runs_global_under_local",
          "spawn_policies_united", "resumed_child_loses_model"]


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    yield ROOT


@pytest.mark.parametrize("name", SAMPLE)
def test_a_broken_provider_fails_the_same_rules_over_http(at_root: Path, name: str) -> None:
    module = importlib.import_module(f"examples.providers.{name}")
    breaks: str = module.BREAKS
    rules = (breaks, *getattr(module, "ALSO_BREAKS", ()))
    spec = f"python:examples.providers.{name}:provider"
    config = RunConfig(target_spec=spec, edition=RULES_BY_ID[breaks].edition, rules=rules)
    results = []
    for over_http in (False, True):
        target = load_target(spec)
        if over_http:
            with ServerThread(create_app(target)) as server:
                client = HttpTarget(server.url, timeout=20)
                certificate = certify(client, config)
                client.close()
        else:
            certificate = certify(target, config)
        target.close()
        results.append({(r.id, p.provider): p.outcome for r in certificate.rules
                        for p in r.providers})
    assert results[1] == results[0]
    assert any(outcome is Outcome.FAIL for (rule, _), outcome in results[1].items()
               if rule == breaks), f"{name} broke {breaks} but passed it over HTTP"
