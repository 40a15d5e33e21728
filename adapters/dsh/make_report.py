"""Write docs/dsh.md from one certify run of DSH (the certificate, rule by rule).

    python adapters/dsh/make_report.py                 # run certify (seed 0), then write
    python adapters/dsh/make_report.py --certificate dsh.json \
        --continuable-certificate dsh-continuable.json \
        --presets-certificate dsh-presets.json          # from the three runs' JSON

The page also has the preset-composition edition's run (the deployment's presets as DSH agent
presets, with ``baseline.presets.toml``) and the continuable path's run (``server.mjs
--continuable`` on ``CONTINUABLE_RULES`` with ``baseline.continuable.toml``).

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

from subagent_tck.conformance.core.baseline import load_baseline

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BASELINE = HERE / "baseline.toml"
CONTINUABLE_BASELINE = HERE / "baseline.continuable.toml"
PRESETS_BASELINE = HERE / "baseline.presets.toml"
#: The rules DSH's continuable path answers (tests/http/test_dsh_adapter.py has the same list).
CONTINUABLE_RULES = ("FR-04", "CA-01", "CA-03", "CA-05")
NOTES = HERE / "report_notes.md"
OUTPUT = ROOT / "docs" / "dsh.md"
COMMAND = ["certify", "--target", "cmd:node adapters/dsh/server.mjs", "--edition",
           "request-controls", "--baseline", "adapters/dsh/baseline.toml"]
CONTINUABLE_COMMAND = ["certify", "--target", "cmd:node adapters/dsh/server.mjs --continuable",
                       "--edition", "request-controls", "--baseline",
                       "adapters/dsh/baseline.continuable.toml",
                       *(a for rule in CONTINUABLE_RULES for a in ("--rule", rule))]
PRESETS_COMMAND = ["certify", "--target", "cmd:node adapters/dsh/server.mjs", "--edition",
                   "preset-composition", "--baseline", "adapters/dsh/baseline.presets.toml"]
#: Failure messages quoted per baseline entry (the certificate has all of them).
QUOTED = 3


def run_certify(seed: int, command: list[str] = COMMAND) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "dsh.json"
        subprocess.run([sys.executable, "-m", "subagent_tck.conformance.cli", *command,
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


def table(certificate: dict[str, Any], only: tuple[str, ...] | None = None) -> str:
    lines = ["| rule | level | outcome | cells |", "|---|---|---|---|"]
    for rule in certificate["rules"]:
        if only is not None and rule["id"] not in only:
            continue
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
        # an entry that names its assertions is shown the failures it excuses, not its rule's
        named = {a.get("fingerprint") for a in entry.get("assertions") or []
                 if isinstance(a, dict)}
        own = [f for f in failures if (f.get("assertion") or {}).get("fingerprint") in named]
        failures = own or failures
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


def entries_of(path: Path) -> list[dict[str, Any]]:
    return [{"rule": e.rule, "reason": e.reason, "provider": e.provider,
             "assertions": [{"fingerprint": a.fingerprint} for a in e.assertions]}
            for e in load_baseline(path).entries]


def continuable_section(certificate: dict[str, Any]) -> str:
    counts = {k: sum(1 for r in certificate["rules"] if r["id"] in CONTINUABLE_RULES
                     and r["outcome"] == k) for k in ("pass", "expected-fail", "not-applicable")}
    lead = fill(
        "DSH has a second delegation path: continuable children (`ctx.subagents."
        "startContinuable`, later messages through `ctx.subagents.followup`, and the cold "
        "resume of a child that is no longer resident, which reapplies the persona and tool "
        "filter its descriptor keeps). `server.mjs --continuable` sends the kit's start, a "
        "child's turns and resume down that path (a resume delivers one message, since DSH "
        "resumes a child on a message). Its children are resident only while they have work, so "
        "only the rules that never address an idle child as a live agent are judged there: "
        f"{', '.join(CONTINUABLE_RULES)}. Verdict **{certificate['verdict']}** with "
        f"`baseline.continuable.toml`: {counts['pass']} pass, {counts['expected-fail']} listed "
        f"divergences, {counts['not-applicable']} not applicable.")
    command = (f"subagent-tck {' '.join(CONTINUABLE_COMMAND[:2])} '{CONTINUABLE_COMMAND[2]}' "
               f"{' '.join(CONTINUABLE_COMMAND[3:5])} \\\n    "
               f"{' '.join(CONTINUABLE_COMMAND[5:7])} \\\n    "
               f"{' '.join(CONTINUABLE_COMMAND[7:])}")
    return f"""## The continuable path (adapters/dsh/baseline.continuable.toml)

{lead}

```
{command}
```

{table(certificate, CONTINUABLE_RULES)}

{divergences(certificate, entries_of(CONTINUABLE_BASELINE))}
"""


def presets_section(certificate: dict[str, Any]) -> str:
    counts = certificate["counts"]
    lead = fill(
        "In the `preset-composition` edition the deployment's presets are DSH agent presets: "
        "the adapter writes each as a preset directory of DSH's roster (`agent.cordis.yml` with "
        "one plugin row that files the preset's persona section and tool restriction into the "
        "preset's standing scope) and loads `@deepseek-ai/dsh-agent-presets` over "
        "`cordis-plugin-loader`; the adapter's own agents join the deployment's preset, a child "
        "joins its parent's composition in its creation window (DSH's `composeFrom`), and a "
        "resumed session rejoins the preset its header records. DSH has no per-start preset, so "
        "a start naming preset P runs with its parent re-linked to P for the child's creation "
        "window (DSH's `recompose`); a preset's outputSchema travels in the start's outputSchema "
        f"field. Verdict **{certificate['verdict']}** with `baseline.presets.toml`: "
        f"{counts['pass']} pass, {counts['expected-fail']} listed divergences, "
        f"{counts['not-applicable']} not applicable.")
    command = (f"subagent-tck {' '.join(PRESETS_COMMAND[:2])} '{PRESETS_COMMAND[2]}' "
               f"{' '.join(PRESETS_COMMAND[3:5])} \\\n    {' '.join(PRESETS_COMMAND[5:])}")
    return f"""## The preset-composition edition (adapters/dsh/baseline.presets.toml)

{lead}

```
{command}
```

{table(certificate)}

{divergences(certificate, entries_of(PRESETS_BASELINE))}
"""


def render(certificate: dict[str, Any], continuable: dict[str, Any] | None = None,
           presets: dict[str, Any] | None = None) -> str:
    entries = entries_of(BASELINE)
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
    extra = "" if presets is None else "\n" + presets_section(presets)
    extra += "" if continuable is None else "\n" + continuable_section(continuable)
    return head + extra + "\n" + notes + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--certificate", type=Path, help="a certify run's JSON certificate")
    parser.add_argument("--continuable-certificate", type=Path,
                        help="the continuable path's run (JSON); run when not given")
    parser.add_argument("--presets-certificate", type=Path,
                        help="the preset-composition edition's run (JSON); run when not given")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if args.certificate is not None:
        certificate = json.loads(args.certificate.read_text(encoding="utf-8"))
    else:
        certificate = run_certify(args.seed)
    if args.continuable_certificate is not None:
        continuable = json.loads(args.continuable_certificate.read_text(encoding="utf-8"))
    else:
        continuable = run_certify(args.seed, CONTINUABLE_COMMAND)
    if args.presets_certificate is not None:
        presets = json.loads(args.presets_certificate.read_text(encoding="utf-8"))
    else:
        presets = run_certify(args.seed, PRESETS_COMMAND)
    args.output.write_text(render(certificate, continuable, presets), encoding="utf-8")
    print(f"wrote {args.output} ({certificate['verdict']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
