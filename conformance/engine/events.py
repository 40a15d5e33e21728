"""The events of a run (docs/architecture.md#rooms): the runner hands :class:`RunStarted`,
:class:`CheckStarted`, :class:`CheckFinished` and :class:`RunFinished` to handlers; each
reporter (the progress bar, the stream of a report file, a test's recorder) is a small
handler. The engine never knows how its results are printed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from subagent_tck.spec import Edition

from ..core.certificate import Certificate
from ..core.outcome import Failure, Outcome
from ..core.protocol import TargetInfo
from .planning import PlannedCheck, RunConfig


@dataclass(frozen=True)
class RunStarted:
    info: TargetInfo
    edition: Edition
    config: RunConfig
    plan: tuple[PlannedCheck, ...]


@dataclass(frozen=True)
class CheckStarted:
    index: int
    total: int
    planned: PlannedCheck


@dataclass(frozen=True)
class CheckFinished:
    index: int
    total: int
    planned: PlannedCheck
    outcomes: Mapping[str, Outcome]
    failures: tuple[Failure, ...]
    duration: float


@dataclass(frozen=True)
class RunFinished:
    certificate: Certificate


Event = RunStarted | CheckStarted | CheckFinished | RunFinished
Handler = Callable[[Event], None]


def emit(handlers: Sequence[Handler], event: Event) -> None:
    """Hand ``event`` to every handler, in order."""
    for handler in handlers:
        handler(event)
