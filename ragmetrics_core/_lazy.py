"""Names a package exports without importing them (each loaded from its module on first access), and old names.

Keeps ``import ragmetrics_core`` (and everything an integration imports under it) cheap: a LangChain handler
that only snapshots text must not load the engine, the judges and the report on the app's start-up. Old names
kept for one release are served the same way, with a ``DeprecationWarning`` naming the new one.
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Mapping
from importlib import import_module
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")


class Renamed(NamedTuple):
    """An old public name: where its replacement lives and what it is called now."""

    module: str
    name: str


class _LazyPackage(types.ModuleType):
    _lazy_exports: Mapping[str, str]
    _lazy_renamed: Mapping[str, Renamed]

    def __getattr__(self, name: str) -> Any:
        module = self._lazy_exports.get(name)
        if module is not None:
            value = getattr(import_module(module), name)
            super().__setattr__(name, value)  # once loaded, served like any attribute
            return value
        new = self._lazy_renamed.get(name)
        if new is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        warn_renamed(f"{self.__name__}.{name}", f"{new.module}.{new.name}")
        return getattr(import_module(new.module), new.name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._lazy_exports})

    def __setattr__(self, name: str, value: Any) -> None:
        # Importing a submodule binds it on its package: ``ragmetrics_core.aggregate`` (the module) would hide the
        # ``aggregate`` function the package exports under the same name.
        if isinstance(value, types.ModuleType) and name in self._lazy_exports:
            return
        super().__setattr__(name, value)


def lazy_package(name: str, exports: Mapping[str, str], renamed: Mapping[str, Renamed] | None = None) -> None:
    """Make the package ``name`` serve ``exports`` (each name -> the module defining it) on first access, and each
    ``renamed`` old name with a ``DeprecationWarning``. Call it from the package's ``__init__`` as
    ``lazy_package(__name__, {...})``, with the same imports under ``TYPE_CHECKING`` for type checkers."""
    package = sys.modules[name]
    package.__class__ = _LazyPackage
    object.__setattr__(package, "_lazy_exports", dict(exports))
    object.__setattr__(package, "_lazy_renamed", dict(renamed or {}))


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """The one wording of a deprecation: ``old`` still works for this release, ``new`` is what to use. The warning
    points at the caller of the function calling this one (``stacklevel=3``), where the old name was written."""
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}", DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_keyword(owner: str, old: str, old_value: T | None, new: str, new_value: T | None) -> T | None:
    """The value of a keyword argument renamed from ``old`` to ``new``: ``old`` is still accepted for one release,
    with a ``DeprecationWarning`` (both default to ``None``; passing both is an error)."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise TypeError(f"{owner}: pass {new}= only ({old}= is its deprecated old name)")
    warn_renamed(f"{owner}({old}=...)", f"{new}=", stacklevel=4)
    return old_value


def renamed_attribute(owner: str, old: str, new: str) -> Any:
    """A read-only class attribute ``old`` serving ``new`` (an attribute, or a dotted path such as ``runs.live_runs``)
    for one release, with a ``DeprecationWarning``."""
    get = attrgetter(new)

    def read(self: object) -> object:
        warn_renamed(f"{owner}.{old}", f".{new}")
        return get(self)

    return property(read, doc=f"Deprecated old name of :attr:`{new}`.")
