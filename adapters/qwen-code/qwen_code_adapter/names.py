"""How Qwen Code 0.24.4 names the kit's tools: MCP server ``SERVER``'s tool ``NAME`` is offered to
the model as ``mcp__SERVER__NAME`` made provider-safe (``tck`` for a tool that names no server;
docs/qwen-code.md#tool-names).

Its ``generateValidName`` (``normalizeToolNameForProvider`` in its
``packages/core/src/utils/tool-name-utils.ts``) keeps a name of at most 63 UTF-16 units that
matches ``^[A-Za-z][A-Za-z0-9_-]*$``; any other name has each UTF-16 unit outside
``[A-Za-z0-9_-]`` replaced by ``_``, is cut to leave room for ``_`` and a 7-character base-36
FNV-1a hash of the original name, and gets that suffix. Two kit names that clean alike keep
distinct wire names through the hash, so the way back is one to one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

SERVER = "tck"  # the MCP server of the tools that name none, in the deployment's settings
MAX = 63  # MAX_TOOL_NAME_LENGTH
_SAFE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data), 2)]


def _hash(text: str) -> str:
    """FNV-1a over UTF-16 units (``Math.imul`` wraps at 32 bits), in base 36, seven digits at
    least (``stableToolNameHash``)."""
    value = 2166136261
    for unit in _units(text):
        value = ((value ^ unit) * 16777619) & 0xFFFFFFFF
    digits = ""
    while value:
        value, rest = divmod(value, 36)
        digits = _DIGITS[rest] + digits
    return (digits or "0").rjust(7, "0")


def provider_name(name: str) -> str:
    """``normalizeToolNameForProvider(name)``."""
    if len(_units(name)) <= MAX and _SAFE.fullmatch(name):
        return name
    clean = "".join(chr(u) if chr(u).isascii() and (chr(u).isalnum() or chr(u) in "_-")
                    else "_" for u in _units(name))
    if not clean[:1].isalpha():
        clean = "tool_" + clean
    suffix = "_" + _hash(name)
    return clean[:MAX - len(suffix)] + suffix


def wire_name(tool: str, server: str = SERVER) -> str:
    """The name Qwen Code's model sees for the kit's global tool ``tool`` of MCP server
    ``server`` (``generateValidName(`mcp__${serverName}__${serverToolName}`)``)."""
    return provider_name(f"mcp__{server}__{tool}")


def names_back(tools: Iterable[str],
               wire: Callable[[str], str] = wire_name) -> dict[str, str]:
    """Wire name -> kit name for ``tools`` (a wire name two kit names share, which the hash
    makes all but impossible, maps to neither)."""
    seen: dict[str, list[str]] = {}
    for tool in tools:
        seen.setdefault(wire(tool), []).append(tool)
    return {wire: kits[0] for wire, kits in seen.items() if len(kits) == 1}
