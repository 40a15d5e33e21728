"""One driver operation as data, and the divergence a step can reveal.

A :class:`Step` names an operation and its arguments in the fuzzer's own labels (agents
``root``, ``a3``, ``c5``; restrictions ``root.r2``; depth values as raw JSON text), so that a
sequence replays exactly against any target, whatever ids that target hands out. A
:class:`Divergence` is the first place where the target and the spec oracle disagree: the
observation, the rules it belongs to (primary first, see :mod:`.rulemap`), expected and observed.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from subagent_tck.conformance.core.jsonsafe import plain


class Step(BaseModel):
    """One operation: ``op`` (a method of the lockstep) and JSON ``args``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    op: str
    args: dict[str, Any] = Field(default_factory=dict)

    def render(self) -> str:
        """``op(key=value, ...)`` with JSON values (depth texts shown as written)."""
        parts = [f"{key}={_show(value)}" for key, value in self.args.items()]
        return f"{self.op}({', '.join(parts)})"


def _show(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"json"}:
        return f"json:{value['json']}"
    return json.dumps(jsonable(value), sort_keys=True)


def jsonable(value: Any) -> Any:
    """A JSON-safe copy (the kit's one converter: sets sorted, non-finite floats by name)."""
    return plain(value)


class Finding(BaseModel):
    """What diverged, where, and which rules it breaks (JSON form of a divergence)."""

    model_config = ConfigDict(extra="forbid")

    step: int = Field(description="1-based index of the step that diverged")
    op: str
    observation: str = Field(description="the kind of observation (see fuzz.rulemap)")
    rules: list[str] = Field(description="the rules the observation belongs to, primary first")
    message: str
    expected: Any = None
    observed: Any = None

    @property
    def rule(self) -> str | None:
        return self.rules[0] if self.rules else None


class Divergence(Exception):
    """The target and the oracle disagree (raised by the lockstep, caught by the campaign)."""

    def __init__(
        self, finding: Finding, steps: list[Step] | None = None,
        setup: Any = None,
    ) -> None:
        self.finding = finding
        self.steps: list[Step] = list(steps or [])
        #: the :class:`~.lockstep_core.Setup` of the deployment the steps ran in
        self.setup = setup
        super().__init__(
            f"step {finding.step} {finding.op}: {finding.message} "
            f"[{', '.join(finding.rules) or 'no rule'}]"
        )
