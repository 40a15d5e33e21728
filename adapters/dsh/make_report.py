"""Write docs/dsh.md from one certify run of DSH (the certificate, rule by rule).

    python adapters/dsh/make_report.py                 # run certify (seed 0), then write
    python adapters/dsh/make_report.py --certificate dsh.json   # from a run's JSON certificate

The run is the done-when command of adapters/dsh/README.md with ``--format json``. The page is
the certificate's rule table, one section per baseline entry (the entry's reason, the run's own
failure messages, the replay command), and the prose kept in ``report_notes.md`` beside this
file (how the adapter reaches DSH, what DSH does that no rule covers yet, what the run changed in
the kit). Target-supplied text (failure messages) is quoted in code spans with backticks and
line breaks removed, so nothing DSH says can become Markdown.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

from subagent_tck.conformance.baseline import load_baseline

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BASELINE = HERE / "baseline.toml"
NOTES = HERE / "report_notes.md"
OUTPUT = ROOT / "docs" / "dsh.md"
COMMAND = ["certify", "--target", "cmd:node adapters/dsh/server.mjs", "--edition",
           "request-controls", "--baseline", "adapters/dsh/baseline.toml"]
#: Failure messages quoted per baseline entry (the certificate has all of them).
QUOTED = 3


def run_certify(seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "dsh.json"
        subprocess.run([sys.executable, "-m", "subagent_tck.conformance.cli", *COMMAND,
                        "--seed", str(seed), "--format", "json", "--output", str(output)],
                       cwd=ROOT, check=False, stdin=subprocess.DEVNULL)
        if not output.is_file():
            raise SystemExit("certify wrote no certificate: run the command of "
                             "adapters/dsh/README.md by hand to see why")
        return json.loads(output.read_text(encoding="utf-8"))


def quote(text: object, limit: int = 300) -> str:
    """Untrusted text as one inline code span."""
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return "`" + flat.replace("`", "'") + "`"


def fill(text: str) -> str:
    return textwrap.fill(text, width=96, break_long_words=False, break_on_hyphens=False)


def cells(rule: dict[str, Any]) -> str:
    groups: dict[str, list[str]] = {}
    for cell in rule["providers"]:
        groups.setdefault(cell["outcome"], []).append(cell["provider"] or "target")
    return "; ".join(f"{', '.join(names)}: {outcome}" for outcome, names in groups.items())


def outcome_of(rule: dict[str, Any]) -> str:
    outcome = rule["outcome"]
    return "**divergence**" if outcome == "expected-fail" else outcome


def table(certificate: dict[str, Any]) -> str:
    lines = ["| rule | level | outcome | cells |", "|---|---|---|---|"]
    for rule in certificate["rules"]:
        lines.append(f"| [{rule['title']}](rules.md#{rule['id'].lower()}) | {rule['level']} | "
                     f"{outcome_of(rule)} | {cells(rule)} |")
    return "\n".join(lines)


def divergences(certificate: dict[str, Any], entries: list[dict[str, Any]]) -> str:
    rules = {rule["id"]: rule for rule in certificate["rules"]}
    out: list[str] = []
    for entry in entries:
        rule = rules.get(entry["rule"])
        provider = entry.get("provider")
        title = rule["title"] if rule else entry["rule"]
        out.append(f"### {title}" + (f" (provider {provider})" if provider else ""))
        out.append("")
        out.append(entry["reason"])
        out.append("")
        failures = [f for f in (rule or {}).get("failures", [])
                    if provider is None or f.get("provider") == provider]
        if failures:
            out.append(f"Observed in this run ({len(failures)} failure(s); the first "
                       f"{min(QUOTED, len(failures))}):")
            out.append("")
            for failure in failures[:QUOTED]:
                out.append(f"- [{failure.get('provider') or 'target'}] "
                           f"{quote(failure['message'])}")
            out.append("")
        replay = (rule or {}).get("replay")
        if replay and "Replay:" not in entry["reason"]:
            out.append(f"Replay: `{replay}`")
            out.append("")
    return "\n".join(out).rstrip()


def render(certificate: dict[str, Any]) -> str:
    entries = [{"rule": e.rule, "reason": e.reason, "provider": e.provider}
               for e in load_baseline(BASELINE).entries]
    info = certificate["target"]["info"]
    counts = certificate["counts"]
    notes = NOTES.read_text(encoding="utf-8").strip()
    providers = ", ".join(f"`{p['name']}` ({' '.join(p['capabilities']) or 'no controls'})"
                          for p in info["providers"])
    intro = fill(
        f"This page is for a DSH maintainer. It is what `subagent-tck` observed of the published "
        f"packages `@deepseek-ai/dsh-*` {info['version']} driven through `adapters/dsh` (its "
        f"README has the install and certify commands), edition `{certificate['edition']}`, "
        f"seed {certificate['seed']}, run of {certificate['started_at'][:10]}. It is written by "
        "`python adapters/dsh/make_report.py` from that run; do not edit it by hand.")
    outcome = fill(
        f"Outcome: **{certificate['verdict']}** with the baseline: {counts['pass']} rules pass, "
        f"{counts['expected-fail']} fail as listed DSH divergences (`expected-fail`, below), "
        f"{counts['not-applicable']} are not applicable; {counts['fail']} unlisted failures, "
        f"{counts['error']} errors, {counts['unexpected-pass']} unexpected passes. Every "
        "baseline entry's rule fails in the same run (tests/http/test_dsh_adapter.py), and "
        "without the baseline the run fails on exactly the listed rules.")
    head = f"""# The certificate of DSH {info['version']}

{intro}

```
subagent-tck {' '.join(COMMAND[:2])} '{COMMAND[2]}' {' '.join(COMMAND[3:5])} \\
    {' '.join(COMMAND[5:])}
```

{fill(f"Providers: {providers}.")}

{outcome}

## Rule by rule

{table(certificate)}

## The divergences (adapters/dsh/baseline.toml)

Each entry says what DSH does, where in its code, and what the rule asks.

{divergences(certificate, entries)}
"""
    return head + "\n" + notes + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--certificate", type=Path, help="a certify run's JSON certificate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if args.certificate is not None:
        certificate = json.loads(args.certificate.read_text(encoding="utf-8"))
    else:
        certificate = run_certify(args.seed)
    args.output.write_text(render(certificate), encoding="utf-8")
    print(f"wrote {args.output} ({certificate['verdict']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
