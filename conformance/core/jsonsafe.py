"""JSON-safe values: the one converter behind every JSON file the kit writes that holds values a
target produced (the certificate, a check's failure, the fuzzer's replay file), and the one
spelling of the floats JSON cannot carry (docs/architecture.md#one-home-per-concept).

The spelling is JSON's own token names, the ones the wire's tagged form carries too
(docs/driver-api.md): ``"NaN"``, ``"Infinity"``, ``"-Infinity"``. The wire itself keeps its
tagged form (``{"$number": "Infinity"}``, :mod:`.codec`), since it must read a value back.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, TypeAdapter

_DATETIME = TypeAdapter(datetime)


def non_finite(value: float) -> str:
    """How a NaN or infinite ``value`` is written in a JSON file of the kit."""
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _order(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def plain(value: Any) -> Any:
    """``value`` as a JSON-ready value: models dumped (in Python mode, so a lone surrogate in a
    key survives), tuples as lists, sets sorted, keys as strings, enums by value, datetimes and
    dates in ISO form, non-finite floats by :func:`non_finite`."""
    if isinstance(value, BaseModel):
        return plain(value.model_dump(mode="python"))
    if isinstance(value, dict):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=_order)
    if isinstance(value, Enum):
        return plain(value.value)
    if isinstance(value, datetime):
        return _DATETIME.dump_python(value, mode="json")
    if isinstance(value, date):  # a baseline entry's until
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return non_finite(value)
    return value
