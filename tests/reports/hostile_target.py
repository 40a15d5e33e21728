"""A hostile target for the report tests: a reference-hosted provider whose name, and the
exception every child run raises, carry what breaks a report (docs/certify.md#outputs).

Loaded as ``python:subagent_tck_hostile_target:factory`` (see ``conftest.py``).
"""

from __future__ import annotations

from typing import Any

from subagent_tck.reference import InProcessProvider
from subagent_tck.spec import CONTROLS

#: Each piece breaks one output when it reaches it raw.
PIECES = {
    "clear screen": "\x1b[2J\x1b[H",
    "window title": "\x1b]0;pwned\x07",
    "OSC 8 link": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "C1 CSI": "\x9b31m",
    "C1 NEL": "\x85",
    "bidi override": "\u202eevil\u202c",
    "bidi isolate": "\u2066x\u2069",
    "carriage return": "\roverwritten",
    "XML-illegal": "\x00\x01\x0b\x1f\ufffe",
    "closing details": "</details><script>alert(1)</script>",
    "HTML comment": "<!--",
    "table pipe": "a|b",
    "javascript link": "[x](javascript:alert(1))",
    "backticks": "`code` ```fence````",
    "rich markup": "[bold red]styled[/bold red]",
    "lone surrogate": "\udc80",
}
HOSTILE = "".join(PIECES.values())
NAME = "evil" + HOSTILE


class HostileProvider(InProcessProvider):
    """Every child run raises an exception whose text is hostile."""

    def run(self, host: Any, child: Any, prompt: str, signal: Any) -> Any:
        raise RuntimeError("provider exploded: " + HOSTILE)


def factory() -> HostileProvider:
    return HostileProvider(NAME, CONTROLS)
