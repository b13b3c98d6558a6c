"""`replace` for the engine's frozen dataclasses, as `dataclasses.replace` does it but cheaper.

`dataclasses.replace` walks `fields()` and calls `__init__` with keywords on every call; the
table's `evolve` and the redaction of every event for every seat call it several times per
action, so it was a visible share of the game server's CPU. Here each class's field names are
read once and every value is fetched in one C call (`operator.attrgetter`); the copy is built
through the class's own `__init__` as before, so it is the same value.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# Per class: (fetch every init field's value, the index of each field name), or None when the
# class needs dataclasses.replace itself (init-only or keyword-only fields).
_plans: dict[type, tuple[Callable[[Any], Any], dict[str, int]] | None] = {}


def _plan(cls: type) -> tuple[Callable[[Any], Any], dict[str, int]] | None:
    fields = getattr(cls, "__dataclass_fields__", None)
    if fields is None:
        raise TypeError("replace() should be called on dataclass instances")
    if any(f._field_type is not dataclasses._FIELD_CLASSVAR and (  # type: ignore[attr-defined]
            f._field_type is not dataclasses._FIELD or not f.init or f.kw_only)  # type: ignore[attr-defined]
           for f in fields.values()):
        plan = None
    else:
        names = [f.name for f in dataclasses.fields(cls)]
        # attrgetter of one name returns the value itself, not a 1-tuple.
        get = operator.attrgetter(*names) if len(names) > 1 else (
            (lambda obj, _g=operator.attrgetter(names[0]): (_g(obj),)) if names else (lambda obj: ()))
        plan = (get, {name: i for i, name in enumerate(names)})
    _plans[cls] = plan
    return plan


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the dataclass instance `obj` with `changes`, like `dataclasses.replace`."""
    cls = type(obj)
    try:
        plan = _plans[cls]
    except KeyError:
        plan = _plan(cls)
    if plan is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    get, index = plan
    values = list(get(obj))
    for name, value in changes.items():
        i = index.get(name)
        if i is None:
            raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword argument {name!r}")
        values[i] = value
    return cls(*values)
