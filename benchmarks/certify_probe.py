"""One ``subagent-tck certify`` as a mutation tool's test command: exit 0 only when certify
exits 0 *and* prints ``verdict: CERTIFIED``; anything else is a kill (exit 1).

    python benchmarks/certify_probe.py certify --target 'cmd:node server.mjs' --seed 0

StrykerJS runs it (implementations/javascript/stryker.config.mjs); benchmarks/README.md says
what the figures mean. The output of certify is passed through.
"""

from __future__ import annotations

import re
import subprocess
import sys

VERDICT_OK = re.compile(r"^verdict: CERTIFIED\b", re.MULTILINE)
CERTIFY = "from subagent_tck.conformance.cli import main; raise SystemExit(main())"


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "certify":
        print("usage: certify_probe.py certify --target TARGET [certify options]",
              file=sys.stderr)
        return 2
    proc = subprocess.run([sys.executable, "-c", CERTIFY, *argv], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False)
    text = proc.stdout.decode("utf-8", "replace")
    sys.stdout.write(text)
    return 0 if proc.returncode == 0 and VERDICT_OK.search(text) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
