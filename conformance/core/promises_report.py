"""The judged promises: one item per promise and aspect, and the report of a run
(docs/promises.md). Plain models, so the certificate can carry them (docs/certify.md)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Status = Literal["kept", "broken", "error"]


class PromiseItem(BaseModel):
    """One judged aspect of one promise."""

    promise: str
    aspect: str
    status: Status
    message: str
    expected: Any = None
    observed: Any = None
    replay: str = ""
    exchange: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.promise}/{self.aspect}"


class PromisesReport(BaseModel):
    target: str
    file: str
    seconds: float
    items: list[PromiseItem]

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in ("kept", "broken", "error")}
        for item in self.items:
            out[item.status] += 1
        return out

    @property
    def kept(self) -> bool:
        return all(i.status == "kept" for i in self.items)
