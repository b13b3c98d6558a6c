"""Melds: the sets a player has laid down (pong, chow, the three kinds of kong)."""

from __future__ import annotations

from engine.core.messages import value
from engine.mahjong.tiles import Tile, tile

PONG = "pong"
CHOW = "chow"
KONG_EXPOSED = "kong_exposed"  # 明杠/点杠: a concealed pung plus a discard
KONG_ADDED = "kong_added"  # 加杠: a fourth tile added to one's own pong
KONG_CONCEALED = "kong_concealed"  # 暗杠: four tiles from the hand, hidden from the others
KONGS = frozenset({KONG_EXPOSED, KONG_ADDED, KONG_CONCEALED})


@value("mahjong.Meld")
class Meld:
    """A laid-down set. `tile` is the set's tile (a chow's lowest tile); None only in another
    seat's view of a concealed kong. `source` is the seat the claimed tile came from."""

    kind: str
    tile: Tile | None
    source: int | None = None

    @property
    def is_kong(self) -> bool:
        return self.kind in KONGS

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The tiles of the set (empty when hidden)."""
        if self.tile is None:
            return ()
        if self.kind == CHOW:
            return (self.tile, tile(self.tile + 1), tile(self.tile + 2))
        return (self.tile,) * (4 if self.is_kong else 3)

    def hidden(self) -> Meld:
        """The meld as another seat sees it: a concealed kong shows no tile."""
        return Meld(self.kind, None, self.source) if self.kind == KONG_CONCEALED else self
