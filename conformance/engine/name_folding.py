"""Cases around the tool names a runtime folds together (docs/driver-api.md#tool-name-folding).

A runtime that declares :class:`~..core.dialect.ToolNameFolding` makes one tool of two names
the catalogue keeps apart (opencode and Claude Code write ``get_weatheré`` and ``get_weather_``
alike). That is docs/rules.md#TF-01's to judge, and its checks still build such pairs. Any other
check that drew such a pair would be judging TF-01 under another rule's name, and only at the
seeds that happen to draw one: a seed that turns an unchanged target red. So for every check that
does not cite TF-01, a deployment given two names that fold alike is a case the target may
refuse to set up (:class:`~.for_all.Inexpressible`): a property draws another in its place.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from ..core.dialect import ToolNameFolding
from ..core.protocol import DeploymentConfig, ToolSpec
from ..core.target import Deployment
from .for_all import Inexpressible

#: The rule whose checks judge pairs of names that fold alike.
JUDGED_BY = "TF-01"


class Names:
    """The tool names one deployment has been given, by their folded spelling."""

    def __init__(self, folding: ToolNameFolding) -> None:
        self.folding = folding
        self._by_fold: dict[str, str] = {}

    def admit(self, names: Iterable[str]) -> None:
        """Take ``names`` in; :class:`Inexpressible` when one folds like another name (the
        same name twice is one tool: a local that shadows a global, a name given again)."""
        for name in names:
            folded = self.folding.fold(name)
            other = self._by_fold.setdefault(folded, name)
            if other != name:
                raise Inexpressible(
                    f"the target folds the tool names {other!r} and {name!r} into one "
                    f"({folded!r}, its declared tool-name folding): a case for TF-01 alone")


class _Folded:
    """A deployment whose ``register_tool`` admits each new name first (see the module doc)."""

    def __init__(self, deployment: Deployment, names: Names) -> None:
        self._deployment = deployment
        self._names = names

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        self._names.admit([tool.name])
        self._deployment.register_tool(tool, agent)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._deployment, name)

    def __repr__(self) -> str:
        return repr(self._deployment)


def screened(config: DeploymentConfig, folding: ToolNameFolding | None,
             rules: Iterable[str]) -> Names | None:
    """The names of ``config``'s tools (global, and each preset's own) admitted (raises
    :class:`Inexpressible` on a pair that folds alike), or None when nothing is to be
    screened: no folding declared, or a check of TF-01."""
    if folding is None or JUDGED_BY in rules:
        return None
    names = Names(folding)
    names.admit(t.name for t in config.tools)
    names.admit(t.name for p in config.presets for t in p.tools or ())  # a preset's own
    return names


def folded(deployment: Deployment, names: Names | None) -> Deployment:
    """``deployment`` with its later registrations screened too (as it is, without ``names``)."""
    return deployment if names is None else cast(Deployment, _Folded(deployment, names))
