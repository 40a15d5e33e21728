"""Target specs: the TARGET argument of ``subagent-tck certify`` (docs/architecture.md).

::

    reference                   the built-in reference runtime (spawn, fork, acp)
    python:MODULE:FACTORY       FACTORY() from MODULE (the current directory is importable):
                                a Target, or a reference provider to host in the reference
    http://127.0.0.1:PORT       an adapter speaking the HTTP driver API (docs/driver-api.md)
    cmd:"COMMAND ..."           start an adapter process, then as http:// (launcher.py)

Loading is a registry of schemes (:data:`SCHEMES`): a new transport adds one loader. Every
mistake in a spec is a ``USAGE`` error whose message names the fix.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping

from subagent_tck.spec import ErrorCode, TckError

from ..core.suggest import closest, hint, phrase
from ..core.target import Target

Loader = Callable[[str], Target]

FORMS = ("reference", "python:MODULE:FACTORY", "http://127.0.0.1:PORT", 'cmd:"COMMAND ..."')


def _usage(message: str) -> TckError:
    return TckError(ErrorCode.USAGE, message)


def _reference(rest: str) -> Target:
    if rest:
        raise _usage(f"the reference target takes no argument (got {rest!r}): use --target "
                     "reference")
    from . import builtin

    return builtin.reference_target()


def _import(module_name: str) -> object:
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise _usage(
                f"cannot import module {module_name!r} (no module named {missing!r}): run from "
                "the directory that contains it, or install its package"
            ) from None
        raise _usage(f"importing {module_name!r} failed: {exc}: install what it needs") from exc
    except Exception as exc:
        raise _usage(
            f"importing {module_name!r} raised {type(exc).__name__}: {exc}: fix the module"
        ) from exc


def _is_reference_provider(value: object) -> bool:
    """An instance of ``subagent_tck.reference.Provider`` (told by its class, without importing
    the reference here: conformance reaches it only through builtin.py)."""
    return any(c.__module__ == "subagent_tck.reference.provider" and c.__name__ == "Provider"
               for c in type(value).__mro__)


def _python(rest: str) -> Target:
    module_name, sep, factory_name = rest.partition(":")
    if not sep or not module_name or not factory_name:
        raise _usage(f"bad python target {('python:' + rest)!r}: write python:MODULE:FACTORY, "
                     "e.g. python:mypkg.targets:make_target")
    module = _import(module_name)
    factory = getattr(module, factory_name, None)
    if factory is None:
        public = [n for n in dir(module) if not n.startswith("_")
                  and callable(getattr(module, n, None))]
        raise _usage(f"module {module_name!r} has no attribute {factory_name!r}"
                     f"{hint(factory_name, public)}: define `def {factory_name}(): ...` "
                     "returning a Target or a provider")
    if not callable(factory):
        raise _usage(f"{module_name}:{factory_name} is a {type(factory).__name__}, not "
                     "callable: make it a function returning a Target or a provider")
    try:
        value = factory()
    except TckError:
        raise
    except Exception as exc:
        raise _usage(f"{module_name}:{factory_name}() raised {type(exc).__name__}: {exc}: "
                     "fix the factory") from exc
    if isinstance(value, Target):
        return value
    if _is_reference_provider(value):
        from . import builtin

        return builtin.reference_target(extra_providers=[value])
    raise _usage(
        f"{module_name}:{factory_name}() returned {type(value).__name__}: return a Target "
        "(info, deploy, close) or a reference Provider "
        "(subagent_tck.reference.provider.Provider)"
    )


def _launcher(name: str) -> Loader:
    def load(rest: str, wait: float | None = None) -> Target:
        from . import launcher  # imported on use: in-process runs need no HTTP stack

        loader: Callable[..., Target] = getattr(launcher, name)
        return loader(rest) if wait is None else loader(rest, wait=wait)

    load.waits = True  # type: ignore[attr-defined]
    return load


#: scheme -> loader of the rest of the spec. ``http``/``https`` keep their ``//`` part.
SCHEMES: dict[str, Loader] = {
    "reference": _reference,
    "python": _python,
    "http": _launcher("load_http"),
    "https": _launcher("load_https"),
    "cmd": _launcher("load_command"),
}


def split_spec(spec: str, schemes: Mapping[str, Loader] = SCHEMES) -> tuple[str, str]:
    """``(scheme, rest)`` of a target spec; a usage error for an unknown form."""
    spec = spec.strip()
    scheme, sep, rest = spec.partition(":")
    if scheme not in schemes:
        raise _usage(f"unknown target {spec!r}{_kind_hint(scheme, rest, sep, schemes)}: use "
                     "one of " + ", ".join(FORMS))
    return scheme, rest if sep else ""


def _kind_hint(scheme: str, rest: str, sep: str, schemes: Mapping[str, Loader]) -> str:
    """" (did you mean 'python:m:f'?)" for a misspelt kind (``pyhton:m:f``, ``refrence``)."""
    kind = closest(scheme, schemes)
    return "" if kind is None else phrase(kind + sep + rest if sep else kind)


def load_target(spec: str, schemes: Mapping[str, Loader] | None = None, *,
                wait: float | None = None) -> Target:
    """The target a spec names. Raises ``TckError(USAGE)`` naming the fix on any mistake.

    ``wait`` (``certify --wait S``): for ``http://``/``https://``, seconds to keep trying to
    reach the target before it is unreachable; for ``cmd:``, how long its ready line may take.
    The in-process forms start at once: a wait for them is a usage error."""
    if not spec or not spec.strip():
        raise _usage("empty target: use one of " + ", ".join(FORMS))
    schemes = SCHEMES if schemes is None else schemes
    scheme, rest = split_spec(spec, schemes)
    loader = schemes[scheme]
    if wait is None:
        return loader(rest)
    if not getattr(loader, "waits", False):
        raise _usage(f"--wait applies to http://, https:// and cmd: targets; a {scheme} target "
                     "starts in this process at once: drop --wait")
    if not wait > 0:
        raise _usage(f"--wait {wait:g}: give a positive number of seconds")
    return loader(rest, wait)  # type: ignore[call-arg]
