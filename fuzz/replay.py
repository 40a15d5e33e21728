"""Replay files: a divergence as data, re-executed step by step against a target.

A :class:`ReplayFile` is JSON (a pydantic model with a ``version``): the deployment set-up
(edition, presentation mode), the shrunk steps as plain data (operation names and JSON
arguments in the fuzzer's own labels, depth values as raw JSON text; never pickles) and the
finding it showed. :func:`replay_steps` runs exactly those steps in a fresh deployment and
returns the first divergence, which for the same target is the same finding.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.spec import Edition, ErrorCode, PresentationMode, TckError

from .lexicon import CLASSIC, Lexicon
from .lockstep import Lockstep
from .lockstep_core import Setup
from .operations import apply
from .step import Divergence, Finding, Step

REPLAY_VERSION: Literal[1] = 1


class ReplayFile(BaseModel):
    """One divergence, replayable: ``subagent-tck fuzz --replay FILE --target TARGET``."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = REPLAY_VERSION
    kit: str = Field(default="", description="the subagent-tck version that wrote the file")
    target: str = Field(description="the target the divergence was found on")
    edition: Edition = Edition.PRESET_COMPOSITION
    mode: PresentationMode = PresentationMode.NATIVE
    tools: list[str] = Field(default_factory=list, description="the deployment's initial globals")
    persona: str = Field(default=CLASSIC.persona, description="the deployment persona template")
    lexicon: Lexicon = Field(default=CLASSIC, description="the words of the deployment's presets, "
                             "variables, sections, core tool names and prompt (a file without "
                             "one ran with the classic words)")
    seed: int | None = None
    steps: list[Step]
    finding: Finding

    def setup(self) -> Setup:
        return Setup(self.edition, self.mode, tuple(self.tools), self.persona, self.lexicon)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=2) + "\n", encoding="utf-8")
        return path


def load_replay(path: str | os.PathLike[str]) -> ReplayFile:
    """Read a replay file; a missing, malformed or newer file is a USAGE error."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TckError(ErrorCode.USAGE, f"no replay file at {path}: give the path the fuzz run "
                       "printed") from None
    except (OSError, ValueError) as exc:
        raise TckError(ErrorCode.USAGE, f"{path} is not a JSON replay file ({exc})") from None
    if isinstance(data, dict) and data.get("version") != REPLAY_VERSION:
        raise TckError(
            ErrorCode.USAGE,
            f"{path} has replay format version {data.get('version')!r}; this kit reads version "
            f"{REPLAY_VERSION}: replay it with the kit version that wrote it",
        )
    try:
        return ReplayFile.model_validate(data)
    except ValidationError as exc:
        raise TckError(ErrorCode.USAGE, f"{path} is not a valid replay file: {exc}") from None


def replay_steps(target: Target, replay: ReplayFile) -> tuple[Divergence | None, int]:
    """Run the file's steps in a fresh deployment: (the first divergence or None, steps run)."""
    lock: Lockstep | None = None
    try:
        lock = Lockstep(target, replay.setup())
        for step in replay.steps:
            apply(lock, step)
        return None, len(lock.steps)
    except Divergence as divergence:
        return divergence, len(divergence.steps)
    except Unsupported:  # a step the target cannot express: nothing diverged up to it
        return None, len(lock.steps) if lock is not None else 0
    finally:
        if lock is not None:
            lock.close()


def replay_name(target: str, finding: Finding, seed: int | None) -> str:
    """A file name that says what diverged: ``fuzz-reference-TF-01-seed0.json``."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", target).strip("-")[:40] or "target"
    rule = finding.rule or "crash"
    return f"fuzz-{slug}-{rule}-seed{seed if seed is not None else 'x'}.json"
