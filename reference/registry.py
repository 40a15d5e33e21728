"""The live global tool registry (TF-06, TF-09, TF-10, TF-11).

The registry is live: views are resolved from it on every use, so a tool registered after a
restriction was installed is judged by that restriction at once (TF-09, TF-10), and an
unregistered tool leaves every view at once (TF-11). Names keep registration order.
Listeners learn of each change (a :class:`RegistryEvent`, the tool).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum

from subagent_tck.spec import ErrorCode, Origin, TckError

from .listeners import Listeners
from .tool import ResolvedTool, Tool, validate_tool


class RegistryEvent(str, Enum):
    """What happened to a global tool."""

    REGISTERED = "registered"
    UNREGISTERED = "unregistered"


RegistryListener = Callable[[RegistryEvent, Tool], None]


class ToolRegistry:
    """Global tools by name, in registration order."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._entries: dict[str, ResolvedTool] = {}  # prebuilt view entries (speed)
        self._listeners: Listeners[[RegistryEvent, Tool]] = Listeners()

    def register(self, tool: Tool) -> None:
        """Add a global tool. ``run_code`` is reserved (RESERVED_NAME); a name already
        registered is DUPLICATE_TOOL."""
        validate_tool(tool)
        if tool.name in self._tools:
            raise TckError(
                ErrorCode.DUPLICATE_TOOL,
                f"a global tool named {tool.name!r} is already registered; unregister it first "
                "or choose another name",
            )
        self._tools[tool.name] = tool
        self._entries[tool.name] = ResolvedTool(tool.name, Origin.GLOBAL, tool)
        self._notify(RegistryEvent.REGISTERED, tool)

    def unregister(self, name: str) -> Tool:
        """Remove a global tool (TF-11); a name not registered is UNKNOWN_TOOL."""
        if not isinstance(name, str) or name not in self._tools:
            raise TckError(
                ErrorCode.UNKNOWN_TOOL,
                f"no global tool named {name!r} is registered; see the global view for names",
            )
        tool = self._tools.pop(name)
        del self._entries[name]
        self._notify(RegistryEvent.UNREGISTERED, tool)
        return tool

    def names(self) -> tuple[str, ...]:
        """The global restrictable set, in registration order."""
        return tuple(self._tools)

    def entries(self) -> Mapping[str, ResolvedTool]:
        """The global view entries by name, in registration order (live, read-only use)."""
        return self._entries

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def add_listener(self, listener: RegistryListener) -> Callable[[], None]:
        """Call ``listener(kind, tool)`` on every change; returns a function that removes it."""
        return self._listeners.add(listener)

    def _notify(self, kind: RegistryEvent, tool: Tool) -> None:
        self._listeners.notify(kind, tool)
