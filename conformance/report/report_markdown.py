"""Markdown for a pull-request comment: verdicts as a table, each failure folded in
``<details>`` with expected, observed, the cause and the replay command.

The only HTML in the file is the kit's own ``<details>``, ``<summary>`` and ``<b>``. Every
value interpolated into running text goes through :func:`_md`, into a ``<summary>`` through
``for_html``, and every code block through :func:`_block`: the boundaries of this format
(docs/certify.md#outputs). A target's ``</details><script>``, ``<!--``, ``|``,
``[x](javascript:...)`` or backticks stay text.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.certificate import Certificate, RuleResult, Verdict, portable_note
from ..core.drawn import judged
from ..core.outcome import Outcome
from ..core.untrusted import for_html, for_markdown_inline, markdown_fence

MAX_VALUE_CHARS = 2000
MARKS = {Verdict.CERTIFIED: "✅", Verdict.PASSED: "✅", Verdict.FAILED: "❌",
         Verdict.NOT_RUN: "➖"}


def _md(text: object) -> str:
    """Running text (a heading, a list item, a table cell): one line, HTML and Markdown
    syntax escaped."""
    return for_markdown_inline(str(text))


def _block(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, sort_keys=True,
                                                           default=str)
    if len(text) > MAX_VALUE_CHARS:
        text = text[:MAX_VALUE_CHARS] + "\n…"
    fence, body = markdown_fence(text)
    return f"{fence}\n{body}\n{fence}"


def _failure(result: RuleResult) -> list[str]:
    where = ", ".join(p.provider or "target" for p in result.providers
                      if p.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.UNEXPECTED_PASS))
    out = ["<details>",
           f"<summary><b>{for_html(result.title)}</b> ({result.level.value}, "
           f"{result.outcome.value}: {for_html(where)})</summary>", ""]
    for failure in result.failures:
        out.append(f"- **{_md(failure.provider or 'target')}** ({_md(failure.check)}): "
                   f"{_md(failure.message)}")
        if failure.cause:
            out += ["", "  cause:", "", _indent(_block(failure.cause))]
        if failure.expected is not None:
            out += ["", "  expected:", "", _indent(_block(failure.expected))]
        if failure.observed is not None:
            out += ["", "  observed:", "", _indent(_block(failure.observed))]
        if failure.example:
            out += ["", "  example:", "", _indent(_block(failure.example))]
        if failure.replay:
            out += ["", "  replay this failure:", "", _indent(_block(failure.replay))]
        if failure.traceback:
            out += ["", "  traceback:", "", _indent(_block(failure.traceback))]
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
        f"## {mark} subagent-tck: {cert.verdict.value} {_md(cert.target.spec)}", "",
        f"{_md(info.name)} {_md(info.version)} · edition {_md(cert.edition.value)} · profile "
        f"{_md(cert.profile)} · seed {cert.seed} · kit {_md(cert.kit_version)} · catalogue "
        f"{_md(cert.catalogue_hash)} · {cert.duration:.2f} s", "",
        "| provider | capability | verdict | blocking rules |",
        "|---|---|---|---|",
    ]
    for v in cert.verdicts:
        capability = v.capability.value if v.capability is not None else "core rules"
        verdict = f"{MARKS[v.verdict]} {v.verdict.value}"
        lines.append(f"| {_md(v.provider)} | {capability} | {verdict} | "
                     f"{_md(', '.join(v.blocking))} |")
    counts = " · ".join(f"{n} {o}" for o, n in cert.counts.items() if n)
    lines += ["", f"Rules: {counts}", ""]
    lines += _partitions(cert)
    if cert.target_tools:
        lines += ["**The target's own global tools** (left out of what is judged, never "
                  f"called): {_md(', '.join(cert.target_tools))}.", ""]
    if cert.portable_variables:
        lines += [f"**Variable names**: {portable_note(lambda p: f'`{p}`')}.", ""]
    if cert.stopped_early:
        lines += [f"**Stopped early**: {_md(cert.stopped_early)}.", ""]
    lines += ["**Dialect** (the runtime's own terms, docs/driver-api.md#dialect):", ""]
    lines += [f"- {_md(line.strip())}" if not line.startswith("  ") else f"  - {_md(line.strip())}"
              for line in cert.dialect.lines()]
    lines.append("")
    if cert.selected_rules is not None:
        lines += [f"Partial run ({_md('--rule ' + ' '.join(cert.selected_rules))}): it never "
                  "certifies.", ""]
    failing = cert.failing()
    if failing:
        lines += [f"### {len(failing)} failing rule(s)", ""]
        for result in failing:
            lines += _failure(result)
    if cert.promises is not None:
        from .report_promises import markdown_lines

        lines += markdown_lines(cert.promises)
    if cert.inexpressible:
        lines += [f"### {len(cert.inexpressible)} rule(s) not applicable: the target cannot "
                  "express the operations their checks need", ""]
        lines += [f"- {_md(r.id)} {_md(r.title)}: {_md(r.reasons(Outcome.NOT_APPLICABLE))}"
                  for r in cert.rules if r.id in cert.inexpressible]
        lines.append("")
    if cert.succeeded and cert.uncertified():
        lines += ["**Nothing certified** (every rule not applicable) for "
                  f"{_md(', '.join(cert.uncertified()))}.", ""]
    if cert.verdict == Verdict.NOT_RUN and cert.selected_rules is None:
        lines += ["**Nothing certified**: no rule was judged (every rule that applies is not "
                  "applicable here).", ""]
    expected = [r for r in cert.rules if r.outcome == Outcome.EXPECTED_FAIL]
    if expected:
        lines += ["### Expected failures (baseline)", ""]
        lines += [f"- {_md(r.title)}: {_md(r.reasons(Outcome.EXPECTED_FAIL))}"
                  for r in expected]
        lines.append("")
    if cert.baseline_summary is not None:
        from .report_baseline import headline, items

        summary = cert.baseline_summary
        lines += ["### Baseline", "", _md(headline(summary)), ""]
        lines += [f"- **{kind}** {_md(text)}" for kind, text in items(summary)]
        excused = [*summary.excused, *summary.whole_rule]
        if excused:
            lines += ["", f"<details><summary>{len(excused)} excused assertion(s)</summary>", ""]
            lines += [f"- {_md(e.rule)} [{_md(e.provider or 'target')}] "
                      f"`{_md(e.assertion.fingerprint)}` {_md(e.assertion.summary())}"
                      + (" (sampled)" if e.sampled else "") for e in excused]
            lines += ["", "</details>"]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _partitions(cert: Certificate) -> list[str]:
    """How many declared partitions the run drew, per rule folded, the undrawn ones named
    (docs/certify.md#partitions)."""
    rows = [(r, judged(r.partitions)) for r in cert.rules]
    beyond = {r.id: [p for p in r.partitions if p.inexpressible_for] for r in cert.rules}
    rows = [(r, parts) for r, parts in rows if parts or beyond[r.id]]
    if not rows:
        return []
    total = sum(len(parts) for _, parts in rows)
    drawn = sum(p.drawn for _, parts in rows for p in parts)
    out = [f"Partitions: {drawn} of {total} drawn", "", "<details>",
           "<summary>Partitions of each rule's domain the run drew</summary>", "",
           "| rule | drawn | undrawn (runs that did not draw it) | inexpressible on the "
           "target (runs) |", "|---|---|---|---|"]
    for result, parts in rows:
        undrawn = "; ".join(f"{p.name} ({', '.join(p.undrawn_for)})" for p in parts
                            if not p.drawn)
        cannot = "; ".join(f"{p.name} ({', '.join(p.inexpressible_for)})"
                           for p in beyond[result.id])
        out.append(f"| {_md(result.id)} | {sum(p.drawn for p in parts)} of {len(parts)} | "
                   f"{_md(undrawn)} | {_md(cannot)} |")
    return [*out, "", "</details>", ""]


def render_error(target_spec: str, message: str, kind: str) -> str:
    """The comment of a run that ended before any check ran: it says why (never a stale
    pass from an earlier run)."""
    return (f"## ❌ subagent-tck: {_md(kind)} {_md(target_spec)}\n\n"
            f"The run ended before any check ran: {_md(message)}\n")
