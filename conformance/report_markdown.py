"""Markdown for a pull-request comment: verdicts as a table, each failure folded in
``<details>`` with expected, observed and the replay command."""

from __future__ import annotations

import json
from typing import IO, Any

from .certificate import Certificate, RuleResult, Verdict
from .outcome import Outcome
from .runner import Event, RunFinished

MAX_VALUE_CHARS = 2000


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _block(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, sort_keys=True,
                                                           default=str)
    if len(text) > MAX_VALUE_CHARS:
        text = text[:MAX_VALUE_CHARS] + "\n…"
    fence = "````" if "```" in text else "```"
    return f"{fence}\n{text}\n{fence}"


def _failure(result: RuleResult) -> list[str]:
    where = ", ".join(p.provider or "target" for p in result.providers
                      if p.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.UNEXPECTED_PASS))
    out = ["<details>",
           f"<summary><b>{result.title}</b> ({result.level.value}, {result.outcome.value}: "
           f"{_cell(where)})</summary>", ""]
    for failure in result.failures:
        out.append(f"- **{failure.provider or 'target'}** ({failure.check}): "
                   f"{_cell(failure.message)}")
        if failure.expected is not None:
            out += ["", "  expected:", "", _indent(_block(failure.expected))]
        if failure.observed is not None:
            out += ["", "  observed:", "", _indent(_block(failure.observed))]
        if failure.example:
            out += ["", "  example:", "", _indent(_block(failure.example))]
        if failure.replay:
            out += ["", "  replay this failure:", "", _indent(_block(failure.replay))]
    if result.replay:
        out += ["", "Replay:", "", _block(result.replay)]
    out += ["", "</details>", ""]
    return out


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def render(cert: Certificate) -> str:
    mark = "✅" if cert.succeeded else "❌"
    info = cert.target.info
    lines = [
        f"## {mark} subagent-tck: {cert.verdict.value} `{cert.target.spec}`", "",
        f"{info.name} {info.version} · edition `{cert.edition.value}` · profile "
        f"`{cert.profile}` · seed {cert.seed} · kit {cert.kit_version} · catalogue "
        f"`{cert.catalogue_hash}` · {cert.duration:.2f} s", "",
        "| provider | capability | verdict | blocking rules |",
        "|---|---|---|---|",
    ]
    for v in cert.verdicts:
        capability = v.capability.value if v.capability is not None else "core rules"
        verdict = f"✅ {v.verdict.value}" if v.verdict == Verdict.CERTIFIED else (
            f"❌ {v.verdict.value}")
        lines.append(f"| {v.provider} | {capability} | {verdict} | "
                     f"{_cell(', '.join(v.blocking))} |")
    counts = " · ".join(f"{n} {o}" for o, n in cert.counts.items() if n)
    lines += ["", f"Rules: {counts}", ""]
    if cert.selected_rules is not None:
        lines += [f"Partial run (`--rule {' '.join(cert.selected_rules)}`): it never "
                  "certifies.", ""]
    failing = cert.failing()
    if failing:
        lines += [f"### {len(failing)} failing rule(s)", ""]
        for result in failing:
            lines += _failure(result)
    expected = [r for r in cert.rules if r.outcome == Outcome.EXPECTED_FAIL]
    if expected:
        lines += ["### Expected failures (baseline)", ""]
        lines += [f"- {r.title}: {_cell(r.reasons(Outcome.EXPECTED_FAIL))}" for r in expected]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


class MarkdownReporter:
    """A handler writing the Markdown summary to ``stream`` when the run finishes."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.stream.write(render(event.certificate))
            self.stream.flush()
