"""``subagent-tck matrix CERT.json... -o DIR``: the certificates side by side, as a static site
(docs/matrix.md).

Exit codes: 0 the site was written, 2 usage (a file that is not a certificate names itself;
nothing is written then). The matrix reports; it judges nothing again: a red certificate is a
red column, not a failed command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .report.matrix_model import build
from .report.matrix_read import read_certificate
from .report.matrix_site import write_site


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("certificates", nargs="+", metavar="CERT.json",
                        help="JSON certificates (certify --format json), any order")
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="the site's folder (created; its pages are replaced)")
    parser.add_argument("--rules-href", default="../rules.md", metavar="URL",
                        help="where docs/rules.md is, relative to DIR or absolute (default "
                        "../rules.md: right for docs/matrix/ of the repository)")


def run(args: argparse.Namespace) -> int:
    sources = [read_certificate(Path(name)) for name in args.certificates]
    matrix = build(sources, args.rules_href)
    written = write_site(matrix, Path(args.output))
    open_cells = sum(c.fail_open for c in matrix.columns)
    print(f"matrix: {len(matrix.columns)} certificate(s), {len(matrix.rows)} rules, "
          f"{open_cells} cell(s) failing open; {len(written)} files in {args.output}",
          file=sys.stdout)
    return 0
