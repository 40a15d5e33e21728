"""``python -m subagent_tck``: the ``subagent-tck`` command line (docs/certify.md)."""

from __future__ import annotations

import sys

from subagent_tck.conformance.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m subagent_tck"))
