"""One ``subagent-tck certify`` as a mutation tool's test command: exit 0 only when certify
exits 0, prints ``verdict: CERTIFIED`` *and* its JSON report has no failing rule; anything else
is a kill (exit 1).

    python benchmarks/certify_probe.py certify --target 'cmd:node server.mjs' --seed 0

A failing SHOULD rule leaves a certificate CERTIFIED (docs/certify.md: it is reported and
blocks no capability), yet the kit found the mutant: the probe reads the report and counts it
killed, as it does a failing MUST rule. StrykerJS runs it (implementations/javascript/
stryker.config.mjs) and ``mutation.py`` judges its runs with :func:`survived`;
benchmarks/README.md says what the figures mean. The output of certify is passed through.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

VERDICT_OK = re.compile(r"^verdict: CERTIFIED\b", re.MULTILINE)
CERTIFY = "from subagent_tck.conformance.cli import main; raise SystemExit(main())"
#: Rule outcomes of a JSON report that mean the kit found something, whatever the rule's level.
FOUND = frozenset({"fail", "error", "unexpected-pass"})


def failing_rules(report: Path) -> list[str] | None:
    """The ids of the rules the JSON report at ``report`` fails (MUST and SHOULD alike); None
    when there is no readable report."""
    try:
        rules = json.loads(report.read_text(encoding="utf-8"))["rules"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return sorted(r["id"] for r in rules if r.get("outcome") in FOUND)


def survived(returncode: int, text: str, report: Path) -> bool:
    """Whether a certify run left its mutant alive: exit 0, ``verdict: CERTIFIED``, and a
    report that fails no rule, not even a SHOULD one."""
    return (returncode == 0 and VERDICT_OK.search(text) is not None
            and failing_rules(report) == [])


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "certify":
        print("usage: certify_probe.py certify --target TARGET [certify options]",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="certify-probe-") as scratch:
        report = Path(scratch) / "report.json"
        proc = subprocess.run([sys.executable, "-c", CERTIFY, *argv, "--report",
                               f"json={report}"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, check=False)
        text = proc.stdout.decode("utf-8", "replace")
        sys.stdout.write(text)
        alive = survived(proc.returncode, text, report)
        if not alive and proc.returncode == 0 and VERDICT_OK.search(text):
            print(f"certify_probe: CERTIFIED, but the report fails "
                  f"{failing_rules(report) or 'no readable rule'} (a SHOULD rule): killed")
    return 0 if alive else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
