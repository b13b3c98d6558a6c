"""One seat's tiles during a hand, and how each shared mahjong event changes them.

Every mahjong ruleset keeps a `SeatTiles` per seat: the concealed tiles as 34 counts (cheap to
update and ready for hand analysis without conversion), the melds, and the river of discards
still on the table. Rules with a ready declaration (报听) also record where the face-down tile lies
and what the locked hand waits on.
"""

from __future__ import annotations

from engine.core.messages import value
from engine.mahjong.melds import CHOW, KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, PONG, Meld
from engine.mahjong.tiles import Tile, counts


@value("mahjong.SeatTiles")
class SeatTiles:
    """`concealed` is 34 counts (a drawn tile included); `river` holds this seat's discards still on
    the table, a face-down ready discard at `ready_at`; `waits` the tiles a locked hand wins on."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    river: tuple[Tile, ...] = ()
    ready_at: int | None = None
    waits: tuple[Tile, ...] = ()

    @staticmethod
    def dealt(tiles: tuple[Tile, ...]) -> SeatTiles:
        return SeatTiles(tuple(counts(tiles)))

    @property
    def ready(self) -> bool:
        return self.ready_at is not None

    @property
    def face_down(self) -> Tile | None:
        return None if self.ready_at is None else self.river[self.ready_at]

    def size(self) -> int:
        return sum(self.concealed)

    def holding(self) -> list[int]:
        """Counts of every tile this seat holds, concealed or in its own melds."""
        held = list(self.concealed)
        for m in self.melds:
            for t in m.tiles:
                held[t] += 1
        return held

    # Each transition builds the value directly rather than through dataclasses.replace: replay
    # (a fold over every event of a table) spends most of its time here.

    def _with(self, t: int, n: int, melds: tuple[Meld, ...] | None = None, river: tuple[Tile, ...] | None = None) -> SeatTiles:
        c = self.concealed
        return SeatTiles(
            c[:t] + (c[t] + n,) + c[t + 1 :],
            self.melds if melds is None else melds,
            self.river if river is None else river,
            self.ready_at,
            self.waits,
        )

    def drew(self, t: Tile) -> SeatTiles:
        return self._with(t, 1)

    def discarded(self, t: Tile) -> SeatTiles:
        return self._with(t, -1, river=(*self.river, t))

    def declared_ready(self, t: Tile, waits: tuple[Tile, ...]) -> SeatTiles:
        """Discarded `t` face down and locked the hand on `waits`."""
        c = self.concealed
        return SeatTiles(c[:t] + (c[t] - 1,) + c[t + 1 :], self.melds, (*self.river, t), len(self.river), waits)

    def lost_last_discard(self) -> SeatTiles:
        """Another seat claimed this seat's latest discard."""
        return SeatTiles(self.concealed, self.melds, self.river[:-1], self.ready_at, self.waits)

    def ponged(self, t: Tile, source: int) -> SeatTiles:
        return self._with(t, -2, melds=(*self.melds, Meld(PONG, t, source)))

    def chowed(self, low: Tile, claimed: Tile, source: int) -> SeatTiles:
        """Claimed `claimed` into the run starting at `low`: the run's two other tiles leave the hand."""
        c = list(self.concealed)
        for t in (low, low + 1, low + 2):
            if t != claimed:
                c[t] -= 1
        return SeatTiles(tuple(c), (*self.melds, Meld(CHOW, low, source)), self.river, self.ready_at, self.waits)

    def laid_out(self, t: Tile) -> SeatTiles:
        """Took `t` out of the hand onto the table by itself (a wild or a flower laid out)."""
        return self._with(t, -1)

    def unkonged(self, t: Tile) -> SeatTiles:
        """The added kong of `t` taken back into a pong, its fourth tile leaving (a robbed kong)."""
        melds = tuple(Meld(PONG, m.tile, m.source) if m.kind == KONG_ADDED and m.tile == t else m for m in self.melds)
        return SeatTiles(self.concealed, melds, self.river, self.ready_at, self.waits)

    def konged(self, t: Tile, kind: str, source: int | None) -> SeatTiles:
        """A kong of `t`: an added kong turns the pong of `t` into a kong; the others take three
        (exposed, plus the discard) or four (concealed) tiles out of the hand."""
        if kind == KONG_ADDED:
            melds = tuple(Meld(kind, m.tile, m.source) if m.kind == PONG and m.tile == t else m for m in self.melds)
            return self._with(t, -1, melds=melds)
        taken = 4 if kind == KONG_CONCEALED else 3
        assert kind in (KONG_CONCEALED, KONG_EXPOSED)
        return self._with(t, -taken, melds=(*self.melds, Meld(kind, t, source)))
