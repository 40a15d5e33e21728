"""A hostile target for the report tests: reference-hosted providers whose names, the
exception every child run of one raises, and a tool the other slips into its children's view
carry what breaks a report (docs/certify.md#outputs).

Loaded as ``python:subagent_tck_hostile_target:factory`` (test_hostile_outputs.py puts it in
``sys.modules`` under that name).
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget, reference_target
from subagent_tck.reference import InProcessProvider, Tool
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


class ToolSmuggler(InProcessProvider):
    """Slips a tool with a hostile name into every child's view: the tool lists observed on
    the wire (and reported as ``observed``) carry it."""

    def run(self, host: Any, child: Any, prompt: str, signal: Any) -> Any:
        child.scope.add_local(Tool(TOOL, lambda arguments, context: {}))
        return super().run(host, child, prompt, signal)


TOOL = "tool" + HOSTILE


def factory() -> ReferenceTarget:
    return reference_target(extra_providers=[HostileProvider(NAME, CONTROLS),
                                             ToolSmuggler("smuggler" + HOSTILE, CONTROLS)])
