"""A seat's copy of the events every mahjong ruleset writes (docs/hidden-information.md).

The shared events (engine.mahjong.actions) and the two each ruleset declares with the same fields
(`HandStarted`, `ClaimWindowOpened`) hide the same things at every table: the others' dealt tiles
and draws, their concealed kongs, their claim answers, who else could claim, and the deck's
secrets. A ruleset's `redact` is its `Redaction`'s, after what it hides of its own events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from engine.core.frozen import replace
from engine.core.memo import ByIdentity
from engine.mahjong.actions import ClaimAnswered, Konged, TileDrawn
from engine.mahjong.melds import KONG_CONCEALED
from engine.mahjong.tiles import Tile, is_flower


class _HandStarted(Protocol):
    __dataclass_fields__: ClassVar[dict[str, Any]]  # an event: a dataclass

    @property
    def dealt(self) -> tuple[tuple[Tile, ...], ...]: ...


class _WindowOpened(Protocol):
    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def options(self) -> tuple[tuple[int, tuple[str, ...]], ...]: ...


E = TypeVar("E")

# The copy of an event every seat but one gets alike (another's draw, a claim window with no
# option for the seat), made once per event rather than once per seat: each event is redacted for
# every seat for its numbering and again for its stream.
_HIDDEN_DRAWS = ByIdentity(1024)
_NO_OPTIONS = ByIdentity(1024)


def _hidden_draw(ev: Any) -> Any:
    return replace(ev, tile=None)


def _no_options(ev: Any) -> Any:
    return replace(ev, options=())


@dataclass(frozen=True, slots=True)
class Redaction:
    """A ruleset's copy-for-a-seat of the events every mahjong ruleset writes: its own
    `hand_started` and `window_opened` event types, and `answers`, its own events that answer a
    claim window as ClaimAnswered does (a chow's ChowClaimed)."""

    hand_started: type[_HandStarted]
    window_opened: type[_WindowOpened]
    answers: tuple[type, ...] = ()

    def redact(self, ev: E, seat: int | None) -> E | None:
        """`ev` as `seat` may see it, or None when it shows that seat nothing; an event of the
        ruleset's own that none of this names, as it is."""
        if isinstance(ev, self.hand_started):
            # Its own dealt tiles only, none of the deck's secrets (HandEnded reveals them).
            dealt = tuple(d if s == seat else () for s, d in enumerate(ev.dealt))
            return replace(ev, dealt=dealt, order=None, seed=None, salt=None)
        if isinstance(ev, self.window_opened):
            # Everyone sees the window (the view shows it anyway), each only its own options;
            # a spectator none (the event has no seat of its own to match seat None).
            own = tuple(o for o in ev.options if o[0] == seat)
            return replace(ev, options=own) if own else _NO_OPTIONS.get(ev, _no_options)
        if getattr(ev, "seat", None) == seat:
            return ev
        if isinstance(ev, TileDrawn):
            # A flower drawn is laid out at once (jj's FlowerShown), so it hides nothing.
            return ev if ev.tile is not None and is_flower(ev.tile) else _HIDDEN_DRAWS.get(ev, _hidden_draw)
        if isinstance(ev, (ClaimAnswered, *self.answers)):
            return None
        if isinstance(ev, Konged) and ev.kind == KONG_CONCEALED:
            return replace(ev, tile=None)
        return ev
