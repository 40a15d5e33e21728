"""The ``subagent`` tool's oracle (ST-04..ST-07): load, mount and the cap of a call.

Pure functions over plain values (docs/rules.md#ST-04 .. #ST-07):

- :func:`decide_tool_load`: the codes a load must be refused with, if any: a ``toolName``
  already loaded (``DUPLICATE_TOOL_NAME``, ST-04), a numeric ``maxDepth`` outside the depth
  domain (``INVALID_DEPTH`` or ``INVALID_CONFIG``, ST-05), a numeric ``maxDepth`` on a
  registered provider without ``depthLimit`` (``UNSUPPORTED_CAPABILITY`` at mount, ST-05).
- :func:`mounts`: whether a load is a live tool given its provider's presence and
  capabilities (ST-02, ST-05).
- :func:`tool_cap`: the cap a call uses now: the configured depth, none for
  ``'provider-managed'``, or the live host depth setting when unset (ST-05, ST-06).
- :func:`decide_tool_call`: whether a call from an agent at ``header_depth`` /
  ``runtime_depth`` is refused at the cap before anything starts (ST-07).

Where the rules leave the order of two faults open, every fault's code is listed: a target
may report any one of them. A duplicate name and a ``maxDepth`` outside the domain both fail
at load, in either order (ST-04, ST-05); the capability a numeric cap needs is judged at mount,
which only a load that passed both reaches (ST-05), so ``UNSUPPORTED_CAPABILITY`` stands alone.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .depth import check_depth, decide_start_depth
from .errors import ErrorCode
from .vocabulary import PROVIDER_MANAGED, Capability


@dataclass(frozen=True)
class ToolLoad:
    """The oracle's answer for one load: ``codes`` empty when it must be accepted."""

    codes: frozenset[ErrorCode]
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.codes


def _numeric(max_depth: object) -> bool:
    return max_depth is not None and max_depth != PROVIDER_MANAGED


def decide_tool_load(
    tool_name: str, max_depth: object, loaded: Collection[str],
    capabilities: Collection[Capability] | None,
) -> ToolLoad:
    """Judge a load of ``tool_name`` with ``max_depth`` (None: unset) while ``loaded`` names
    are loaded; ``capabilities`` of the bound provider, None when it is not registered."""
    codes: set[ErrorCode] = set()
    reasons: list[str] = []
    if tool_name in loaded:
        codes.add(ErrorCode.DUPLICATE_TOOL_NAME)
        reasons.append(f"a tool named {tool_name!r} is already loaded (ST-04)")
    if _numeric(max_depth) and not check_depth(max_depth).ok:
        codes |= {ErrorCode.INVALID_DEPTH, ErrorCode.INVALID_CONFIG}
        reasons.append(f"maxDepth {max_depth!r} is outside the depth domain (ST-05)")
    elif not codes and capabilities is not None and not mounts(max_depth, capabilities):
        codes.add(ErrorCode.UNSUPPORTED_CAPABILITY)
        reasons.append("a numeric maxDepth needs depthLimit at mount (ST-05)")
    return ToolLoad(frozenset(codes), "; ".join(reasons))


def mounts(max_depth: object, capabilities: Collection[Capability] | None,
           registered: bool = True) -> bool:
    """Whether a (valid) load is a live tool: its provider registered, and ``depthLimit``
    advertised when ``maxDepth`` is numeric."""
    if not registered or capabilities is None:
        return False
    return not _numeric(max_depth) or Capability.DEPTH_LIMIT in capabilities


def tool_cap(max_depth: object, host_depth: int) -> int | None:
    """The cap of a call now (None: no cap is sent)."""
    if max_depth == PROVIDER_MANAGED:
        return None
    if max_depth is None:
        return host_depth
    verdict = check_depth(max_depth)
    return verdict.value


def decide_tool_call(header_depth: object, runtime_depth: object, cap: int | None) -> bool:
    """True when a call is refused at the cap (ST-07): the child would be deeper than ``cap``.
    Other faults of the start (a bad stored depth, an overflow) are the start's own."""
    if cap is None:
        return False
    decision = decide_start_depth(header_depth, runtime_depth, cap)
    return decision.code is ErrorCode.DEPTH_EXCEEDED


__all__ = ["ToolLoad", "decide_tool_call", "decide_tool_load", "mounts", "tool_cap"]
