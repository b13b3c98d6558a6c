"""Every ruleset by name. Each ruleset package exposes a module-level `RULESET` object."""

from __future__ import annotations

import importlib
import importlib.util
from typing import cast

from engine.core.contract import AnyRuleset

_PACKAGES = {
    "koudian": "engine.koudian",
    "daqi": "engine.daqi",
    "wuhan": "engine.wuhan",
    "jj": "engine.jj",
}


class UnknownRuleset(LookupError):
    """A ruleset name that is not one of ours (or not implemented yet)."""


def get(name: str) -> AnyRuleset:
    """The ruleset called `name`."""
    package = _PACKAGES.get(name)
    if package is None:
        raise UnknownRuleset(f"unknown ruleset {name!r}; known: {', '.join(available())}")
    try:
        module = importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name and package.startswith(exc.name):
            raise UnknownRuleset(f"ruleset {name!r} is not implemented yet") from None
        raise
    return cast(AnyRuleset, module.RULESET)


def available() -> list[str]:
    """Names of the rulesets that are implemented."""
    names = []
    for name, package in _PACKAGES.items():
        if importlib.util.find_spec(package) is not None:
            names.append(name)
    return names
