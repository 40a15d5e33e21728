"""A ``subagent`` tool that takes ``persona`` and ``toolFilter`` in every edition and composes
its children by them (breaks EN-02).

The tool was written for the request-controls edition: its options are read without asking
which edition the deployment is in, and its starts go to the host as trusted configuration,
past the edition's gate. Loaded with a persona or a tool filter in the preset-composition
edition, every child it starts is composed by them, where docs/rules.md#EN-02 has such
overrides refused (at load, or at each start). A load without persona and toolFilter, and
every start that does not come through the tool, are as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.subagent_tool import SubagentTool
from subagent_tck.spec import Edition


@contextmanager
def request_controls(host: Host) -> Iterator[None]:
    """The bug: the host is told it runs request-controls while the tool works."""
    edition, host.edition = host.edition, Edition.REQUEST_CONTROLS
    try:
        yield
    finally:
        host.edition = edition


BREAKS = "EN-02"


class TrustedTool(SubagentTool):
    def call(self, arguments: Mapping[str, Any], context: Any) -> Any:
        with request_controls(self.host):
            return super().call(arguments, context)


class EditionBlindHost(Host):
    subagent_tool_class = TrustedTool

    def load_subagent_tool(self, config: Mapping[str, Any]) -> None:
        with request_controls(self):
            super().load_subagent_tool(config)


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=EditionBlindHost, name="tool-options-ignore-edition")
