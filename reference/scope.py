"""One agent's scope: its local tools, restrictions, prompt sections and presentation mode.

Registration is flat (docs/rules.md, "scope"): a scope does not inherit its parent's locals, and
what it installs changes no other scope (TF-13). Restrictions are validated against the global
restrictable set when installed (TF-07, TF-08: ``INVALID_TOOL_FILTER`` with every offending name
in ``details["offending"]``; nothing installed), their values are copied (TF-15), and each is
lifted by disposing its handle; disposing twice is harmless (TF-14). A local tool named
``run_code`` is refused (TF-06); a local may share a global's name and then shadows it (TF-05).
Spawn policies (``{allow?, deny?}`` over preset names, docs/rules.md#SP-01) are kept the same
way beside the restrictions: validated against the deployment's presets when installed
(``INVALID_SPAWN_POLICY``, every unknown name in ``details["offending"]``), lifted by handle.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from subagent_tck.spec import (
    ErrorCode,
    Origin,
    PresentationMode,
    Restriction,
    TckError,
    validate_restriction,
    validate_spawn_policy,
)

from .prompt import PromptSection
from .registry import ToolRegistry
from .tool import ResolvedTool, Tool, validate_tool


def parse_mode(mode: object) -> PresentationMode:
    """A presentation mode from its value (``native``, ``ptc``, ``both``) or INVALID_REQUEST."""
    try:
        return PresentationMode(mode)
    except ValueError:
        raise TckError(
            ErrorCode.INVALID_REQUEST,
            f"unknown presentation mode {mode!r}; use one of native, ptc, both",
        ) from None


class Scope:
    """What one agent sees; resolved into a view by the :class:`~.resolver.Resolver`."""

    def __init__(
        self,
        scope_id: str,
        registry: ToolRegistry,
        mode: PresentationMode = PresentationMode.NATIVE,
    ) -> None:
        self.id = scope_id
        self.registry = registry
        self.mode = mode
        self._locals: dict[str, ResolvedTool] = {}
        self._restrictions: dict[str, Restriction] = {}
        self._policies: dict[str, Restriction] = {}
        self._issued: dict[str, str] = {}  # handle -> what it lifts
        self._next_handle = 1
        self._sections: list[PromptSection] = []

    # --- scope-local tools (TF-04, TF-05, TF-06) -------------------------------------------

    def add_local(self, tool: Tool) -> None:
        validate_tool(tool)
        if tool.name in self._locals:
            raise TckError(
                ErrorCode.DUPLICATE_TOOL,
                f"scope {self.id} already has a local tool named {tool.name!r}; "
                "unregister it first",
            )
        self._locals[tool.name] = ResolvedTool(tool.name, Origin.LOCAL, tool)

    def remove_local(self, name: str) -> Tool:
        if not isinstance(name, str) or name not in self._locals:
            raise TckError(
                ErrorCode.UNKNOWN_TOOL,
                f"scope {self.id} has no local tool named {name!r}; see its view for names",
            )
        return self._locals.pop(name).tool

    def locals(self) -> Mapping[str, ResolvedTool]:
        """The scope-local view entries by name, in registration order (read-only use)."""
        return self._locals

    # --- restrictions (TF-01..03, TF-07, TF-08, TF-14, TF-15) ------------------------------

    def restrict(self, value: object) -> str:
        """Validate ``{allow?, deny?}`` against the live global names and install it."""
        verdict = validate_restriction(value, self.registry.names())
        if verdict.restriction is None:
            raise TckError(
                ErrorCode.INVALID_TOOL_FILTER,
                verdict.reason,
                {"offending": list(verdict.offending)},
            )
        return self.install(verdict.restriction)

    def install(self, restriction: Restriction) -> str:
        """Install an already validated restriction; returns its handle."""
        return self._issue(self._restrictions, restriction, "restriction")

    def _issue(self, table: dict[str, Restriction], value: Restriction, what: str) -> str:
        handle = f"{self.id}/{what[0]}{self._next_handle}"
        self._next_handle += 1
        table[handle] = value
        self._issued[handle] = what
        return handle

    def dispose(self, handle: str) -> bool:
        """Lift exactly one restriction; True if it was installed. A handle never issued by this
        scope is UNKNOWN_RESTRICTION; a second dispose is harmless (TF-14)."""
        return self._lift(self._restrictions, handle, "restriction")

    def _lift(self, table: dict[str, Restriction], handle: object, what: str) -> bool:
        if not isinstance(handle, str) or self._issued.get(handle) != what:
            raise TckError(
                ErrorCode.UNKNOWN_RESTRICTION,
                f"scope {self.id} never issued {what} handle {handle!r}; "
                "use the handle returned when it was installed",
            )
        return table.pop(handle, None) is not None

    def restrictions(self) -> tuple[Restriction, ...]:
        return tuple(self._restrictions.values())

    # --- spawn policies (SP-01) --------------------------------------------------------------

    def restrict_spawn(self, value: object, presets: Collection[str]) -> str:
        """Validate ``{allow?, deny?}`` over the deployment's preset names and install it."""
        verdict = validate_spawn_policy(value, presets)
        if verdict.restriction is None:
            raise TckError(
                ErrorCode.INVALID_SPAWN_POLICY,
                verdict.reason,
                {"offending": list(verdict.offending)},
            )
        return self._issue(self._policies, verdict.restriction, "spawn policy")

    def dispose_spawn(self, handle: str) -> bool:
        """Lift exactly one spawn policy (a second dispose is harmless)."""
        return self._lift(self._policies, handle, "spawn policy")

    def spawn_policies(self) -> tuple[Restriction, ...]:
        return tuple(self._policies.values())

    # --- scoped prompt sections (PE-01) ----------------------------------------------------

    def add_section(self, section: PromptSection) -> None:
        """Register (or replace, keeping its position) a scoped section of that name."""
        for i, existing in enumerate(self._sections):
            if existing.name == section.name:
                self._sections[i] = section
                return
        self._sections.append(section)

    def remove_section(self, name: str) -> None:
        for i, existing in enumerate(self._sections):
            if existing.name == name:
                del self._sections[i]
                return
        raise TckError(
            ErrorCode.INVALID_REQUEST, f"scope {self.id} has no section named {name!r}"
        )

    def sections(self) -> tuple[PromptSection, ...]:
        return tuple(self._sections)
