"""The one handler of the file formats: write a rendered certificate to a stream when the run
finishes (docs/architecture.md#one-home-per-concept). The terminal's is
:class:`~.report_text.TextReporter`, which draws through rich.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO

from ..core.certificate import Certificate
from ..engine.events import Event, RunFinished


class StreamReporter:
    """A runner handler: ``render(certificate)`` written to ``stream`` at :class:`RunFinished`
    (``render`` is a format's, like :func:`.report_json.render`)."""

    def __init__(self, render: Callable[[Certificate], str], stream: IO[str]) -> None:
        self.render = render
        self.stream = stream

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.stream.write(self.render(event.certificate))
            self.stream.flush()
