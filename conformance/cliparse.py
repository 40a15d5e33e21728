"""The command line's argument parser: argparse, with the kit's error style and "did you mean"
for every choice (commands, formats, editions, profiles), and ``--version``.

Every parser of ``subagent-tck`` (the commands', the plugged ones' too) is a :class:`Parser`:
a mistake prints the usage, then one ``subagent-tck: error: ... (code USAGE)`` line
(:mod:`.clierror`), and exits 2.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from subagent_tck.spec import ErrorCode

from .core.clierror import error_line
from .core.suggest import hint


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(error_line(f"{message}; see `{self.prog} --help`", ErrorCode.USAGE),
              file=sys.stderr, flush=True)
        self.exit(2)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(c) for c in choices]
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint(str(value), names)}"
                                             f"; choose from {', '.join(names)}")


def version_text() -> str:
    """``subagent-tck 0.1.0 (catalogue 1a2b3c4d5e6f, 61 rules; driver protocol 1; Python
    3.12.1)``: what a bug report or a CI log needs to reproduce a verdict."""
    from subagent_tck.spec import CATALOGUE, catalogue_hash

    from .core.protocol import PROTOCOL_VERSION

    try:
        version = importlib.metadata.version("subagent-tck")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        version = "0+unknown"
    return (f"subagent-tck {version} (catalogue {catalogue_hash()[:12]}, {len(CATALOGUE)} "
            f"rules; driver protocol {PROTOCOL_VERSION}; Python {platform.python_version()})")


class VersionAction(argparse.Action):
    """``--version``: computed only when asked (the catalogue hash is not free)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "print the kit's version, catalogue hash and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(version_text(), flush=True)
        parser.exit(0)
