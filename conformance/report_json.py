"""The JSON certificate (DESIGN.md, "Results and verdicts"): the machine-readable record of a
run, valid against the committed ``certificate.schema.json``."""

from __future__ import annotations

from typing import IO

from .certificate import Certificate
from .runner import Event, RunFinished


def render(cert: Certificate) -> str:
    return cert.model_dump_json(indent=2) + "\n"


class JsonReporter:
    """A handler writing the certificate to ``stream`` when the run finishes."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.stream.write(render(event.certificate))
            self.stream.flush()
