"""What the terminal client (`qipai play`) shows: a seat's view, the table's events and each
hand's result, with tiles and cards in the notation of docs/rules/README.md (`123m 456p EEE`,
`♠A ♥10`) and melds as players write them. Never a Python repr."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.core.messages import decode, message_to_json, schema_version
from engine.daqi.cards import SUIT_SYMBOLS
from engine.daqi.settlement import OUTCOMES as DAQI_OUTCOMES
from engine.mahjong.tiles import face_value, parse_tile

HIDDEN = "■"  # a tile or card the seat may not see (a face-down 报听 discard, a concealed kong)
DEAL_PROGRESS_EVERY = 10  # cards: a daqi deal takes 100 of them
TAKE_BACK_HINT = "press t (then Enter) to take your seat back"  # `qipai play` reads the t


def tiles(row: Sequence[Any]) -> str:
    """Tiles as players write a hand: `468m 45p 239s E N P` (number tiles grouped by suit)."""
    groups: list[str] = []
    for t in row:
        text = HIDDEN if t is None else str(t)
        if groups and len(text) == 2 and text[0].isdigit() and groups[-1][-1] == text[1] \
                and groups[-1][0].isdigit():
            groups[-1] = groups[-1][:-1] + text
        else:
            groups.append(text)
    return " ".join(groups)


def in_order(row: Sequence[Any]) -> str:
    """Tiles or cards one by one, in the order given (a river, a trick): `9m C S ■ 2m`."""
    return " ".join(HIDDEN if t is None else str(t) for t in row)


def meld(kind: str, tile: Any) -> str:
    """A meld as players write it: `111p`, `EEE`, `5555s`, `123m`; another's concealed kong `■■■■`."""
    if tile is None:
        return HIDDEN * 4
    text = str(tile)
    copies = 4 if "kong" in kind else 3
    if kind == "chow":
        n, suit = int(text[0]), text[1]
        return f"{n}{n + 1}{n + 2}{suit}"
    if text[0].isdigit():
        return text[0] * copies + text[1]
    return text * copies


def action(cmd: Any) -> str:
    """A command as a player types it: `discard 5m`, `play ♠A ♠A`."""
    data = message_to_json(cmd)
    words = [_snake(data["type"].partition(".")[2]).replace("_", " ")]
    for key, value in data["data"].items():
        if key == "seat" or value is None:
            continue
        words.append(" ".join(map(str, value)) if isinstance(value, list) else str(value))
    return " ".join(words)


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def signed(n: int) -> str:
    return f"{n:+d}".replace("-", "−")


class Screen:
    """Lines to print for one seat at one table; `names[seat]` is how each seat is called."""

    def __init__(self, ruleset: str, seat: int, names: Sequence[str]) -> None:
        self.ruleset, self.seat, self.names = ruleset, seat, list(names)
        self.options: dict[str, Any] = {}

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        if seat == self.seat:
            return "you"
        name = self.names[seat] if seat < len(self.names) else ""
        return f"seat {seat} ({name})" if name else f"seat {seat}"

    def whose(self, seat: int | None) -> str:
        return "your" if seat == self.seat else f"{self.who(seat)}'s"

    def does(self, seat: int | None, verb: str) -> str:
        """`you discard` / `seat 1 (bot1) discards`: the seat and the verb agreeing with it."""
        if seat == self.seat:
            return f"you {verb}"
        third = verb[:-1] + "ies" if verb.endswith("y") and verb[-2] not in "aeiou" else (
            verb + "es" if verb.endswith(("s", "sh", "ch", "x")) else verb + "s")
        return f"{self.who(seat)} {third}"

    def scores(self, deltas: Sequence[int]) -> str:
        return ", ".join(f"{self.who(s)} {signed(d)}" for s, d in enumerate(deltas))

    # -- events ------------------------------------------------------------------------------

    def event(self, type_: str, data: dict[str, Any]) -> list[str]:
        """What one event (as this seat may see it) means, in a line or a few; [] for noise."""
        handler = _EVENTS.get(type_)
        return handler(self, data) if handler else []

    # -- views -------------------------------------------------------------------------------

    def view(self, reply: Any, view: Any) -> list[str]:
        """The table as this seat sees it before a decision."""
        head = f"— table {reply.table_id} · version {reply.version} · you are seat {reply.seat}"
        lines = [head]
        body = _daqi_view if self.ruleset == "daqi" else _mahjong_view
        lines += body(self, reply, view)
        if reply.seat in reply.auto_play:
            lines.append(f"auto-play (托管) is on for you: the server plays your seat — {TAKE_BACK_HINT}")
        others = [self.who(s) for s in reply.auto_play if s != reply.seat]
        if others:
            lines.append("on auto-play: " + ", ".join(others))
        return lines


# -- mahjong (koudian, jj) ---------------------------------------------------------------------

def _mahjong_view(screen: Screen, reply: Any, v: Any) -> list[str]:
    lines = [f"hand {v.hands_played + 1} · dealer {screen.who(v.dealer)} · {v.wall_live} tiles left "
             f"in the wall · scores: {screen.scores(v.scores)}"]
    if getattr(v, "wild", None) is not None:
        lines.append(f"混 wild: {v.wild} (the indicator {v.indicator})")
    if getattr(v, "laizi", None) is not None:
        lines.append(f"赖子 wild: {v.laizi} · skins {in_order(v.skins)} (the indicator {v.indicator})")
    laid = [f"{screen.who(s)} {in_order(t)}" for s, t in enumerate(getattr(v, "laid", ())) if t]
    if laid:
        lines.append("laid out (赖子 and skins): " + ", ".join(laid))
    flowers = [f"{screen.who(s)} {in_order(f)}" for s, f in enumerate(getattr(v, "flowers", ())) if f]
    if flowers:
        lines.append("flowers: " + ", ".join(flowers))
    for s in range(len(v.hand_sizes)):
        melds = " ".join(meld(m.kind, m.tile) + ("" if m.source is None else f"←{m.source}")
                         for m in (v.melds[s] if s < len(v.melds) else ()))
        river = in_order(v.rivers[s]) if s < len(v.rivers) else ""
        declared = getattr(v, "ready", ())  # wuhan has no 报听
        ready = " · ready (报听)" if s < len(declared) and declared[s] else ""
        lines.append(f"  {screen.who(s):<16} {v.hand_sizes[s]:>2} tiles{ready}"
                     + (f" · melds {melds}" if melds else "") + f" · river: {river or '-'}")
    hand = tiles(v.hand)
    if v.drawn is not None:
        lines.append(f"your hand: {hand}  · just drawn: {v.drawn}")
    else:
        lines.append(f"your hand: {hand}")
    if getattr(v, "waits", ()):
        lines.append(f"you are ready, waiting on {in_order(v.waits)}")
    if v.phase in ("claims", "robbing") and v.claim_tile is not None:
        what = "adds a kong of" if v.phase == "robbing" else "discarded"
        lines.append(f"{screen.who(v.turn)} {what} {v.claim_tile}: your answer?")
    if any(v.rivers[s] and None in v.rivers[s] for s in range(len(v.rivers))):
        lines.append(f"({HIDDEN}: a face-down 报听 discard)")
    return lines


def _discarded(screen: Screen, d: dict[str, Any]) -> list[str]:
    auto = " (auto-play)" if d.get("auto") else ""
    return [f"{screen.does(d['seat'], 'discard')} {d['tile']}{auto}"]


def _drawn(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["seat"] != screen.seat or d.get("tile") is None:
        return []  # another's draw: the next discard says more
    return [f"you draw {d['tile']}" + (" (a kong's replacement, from the tail)" if d.get("from_tail") else "")]


def _ponged(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.does(d['seat'], 'pong')} {meld('pong', d['tile'])} on {screen.whose(d['source'])} discard"]


_KONG_WORDS = {"kong_exposed": "an exposed kong", "kong_added": "an added kong",
               "kong_concealed": "a concealed kong"}


def _konged(screen: Screen, d: dict[str, Any]) -> list[str]:
    kind = _KONG_WORDS.get(d["kind"], "a kong")
    return [f"{screen.does(d['seat'], 'declare')} {kind}: "
            f"{meld('kong', d.get('tile'))}"]


def _ready(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["seat"] == screen.seat and d.get("tile"):
        return [f"you declare ready (报听), discarding {d['tile']} face down; waiting on "
                f"{in_order(d.get('waits') or ())}"]
    return [f"{screen.does(d['seat'], 'declare')} ready (报听), discarding face down"]


def _claim_window(screen: Screen, d: dict[str, Any]) -> list[str]:
    if not d.get("options"):  # a window opens after every discard; this seat has no claim in it
        return []
    what = "robbing the kong of" if d.get("robbing") else "claiming"
    return [f"you may answer: {what} {d['tile']} from {screen.who(d['source'])}"]


def _koudian_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"hand {d['number']} begins: {screen.does(d['dealer'], 'deal')}"
            f" (the deck's commitment: {d['commitment'][:16]}…)"]


def _dealer_chosen(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"the dice choose the first dealer: {screen.who(d['dealer'])}"]


def _how(screen: Screen, d: dict[str, Any]) -> str:
    tile, source = d["tile"], d.get("source")
    return {
        "self_draw": f"by self-draw with {tile}",
        "kong_self_draw": f"with {tile}, a concealed kong's replacement (a self-draw)",
        "kong_replacement_win": f"with {tile}, a kong's replacement (counted as a discard win)",
        "discard_win": f"on {screen.whose(source)} discard of {tile}",
        "robbed_kong": f"robbing {screen.whose(source)} kong of {tile}",
    }.get(d["outcome"], f"({d['outcome']}) with {tile}")


def _koudian_result(screen: Screen, d: dict[str, Any]) -> list[str]:
    deltas = d["deltas"]
    if d["outcome"] == "draw":
        head = ["hand over: a draw (流局), the live wall is used up; nobody pays"]
    elif d["outcome"] == "kong_draw":
        head = ["hand over: a draw: all three others were ready and waited on the kong's tile; nobody pays"]
    else:
        tile = d["tile"]
        worth = face_value(parse_tile(tile))
        doubled = d["outcome"] in ("self_draw", "kong_self_draw")
        factors = f"{worth} (face value of {tile})" + (" × 2 (self-draw)" if doubled else "")
        base = int(screen.options.get("base_score", 1))
        score = d["points"] * base
        if d.get("payer") is not None:
            pays = f"{screen.does(d['payer'], 'pay')} for all three (包): 3 × {score} = {3 * score}"
        else:
            pays = f"each of the three others pays {score}"
        head = [f"hand over: {screen.does(d['winner'], 'win')} {_how(screen, d)}",
                f"  points: {factors} = {d['points']}" + (f" × base score {base}" if base != 1 else ""),
                f"  {pays}"]
    face_down = [f"{screen.who(s)} {t}" for s, t in enumerate(d.get("face_down") or ()) if t]
    if face_down:
        head.append("  face-down 报听 discards: " + ", ".join(face_down))
    hands = d.get("hands") or ()
    for s, hand in enumerate(hands):
        if hand:
            head.append(f"  {screen.who(s):<16} {tiles(hand)}")
    head.append(f"  this hand: {screen.scores(deltas)}")
    return head


def _jj_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    wild = f"; 混 (wild) {d['wild']}, the indicator {d['indicator']}" if d.get("wild") else ""
    return [*_koudian_started(screen, d)[:1], *([f"  {wild[2:]}"] if wild else [])]


def _flower(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.does(d['seat'], 'show')} the flower {d['flower']}"]


def _chowed(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.does(d['seat'], 'chow')} {meld('chow', parse_tile(d['low']))} on "
            f"{screen.whose(d['source'])} discard of {d['tile']}"]


def _jj_ready(screen: Screen, d: dict[str, Any]) -> list[str]:
    heavenly = " (天听)" if d.get("heavenly") else ""
    return [f"{screen.does(d['seat'], 'declare')} ready (报听){heavenly}, discarding {d['tile']}"]


_JJ_HOW = {"self_draw": "by self-draw", "discard_win": "on a discard", "robbed_kong": "robbing a kong"}
_JJ_REASONS = {"part": "20% for the set it fed", "discard": "the discarder", "self_draw": "a share of the self-draw"}


def _jj_won(screen: Screen, d: dict[str, Any]) -> list[str]:
    scored = d["scored"]
    how = _JJ_HOW.get(d["how"], d["how"].replace("_", " "))
    source = f" from {screen.who(d['source'])}" if d.get("source") is not None else ""
    lines = [f"hand over: {screen.does(d['seat'], 'win')} {how} with {d['tile']}{source}"]
    for fan in scored["fans"]:
        times = f" × {fan['times']}" if fan.get("times", 1) != 1 else ""
        lines.append(f"  {fan['name']} {fan['value']}番{times}")
    if scored.get("excluded"):
        lines.append(f"  (not counted, excluded by the others: {', '.join(scored['excluded'])})")
    lines.append(f"  = {scored['total']}番")
    for pay in d.get("payments") or ():
        reason = _JJ_REASONS.get(pay["reason"], pay["reason"])
        lines.append(f"  {screen.does(pay['payer'], 'pay')} {pay['points']} to {screen.who(pay['payee'])} ({reason})")
    return lines


def _jj_ended(screen: Screen, d: dict[str, Any]) -> list[str]:
    lines = [] if d["outcome"] != "draw" else ["hand over: a draw (荒庄), the wall is used up; nobody pays"]
    for s, hand in enumerate(d.get("hands") or ()):
        if hand:
            lines.append(f"  {screen.who(s):<16} {tiles(hand)}")
    return [*lines, f"  this hand: {screen.scores(d['deltas'])}"]


def _indicator(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"the indicator {d['indicator']}: 赖子 (wild) {d['laizi']}, skins {in_order(d['skins'])}"]


def _laid_out(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.does(d['seat'], 'lay')} out {d['tile']} ({d['kong']})"]


def _wuhan_result(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["outcome"] == "draw" or d.get("settlement") is None:
        lines = ["hand over: a draw (荒庄); nobody pays"]
    else:
        from engine.wuhan.game import explain  # each loser's amount as a formula

        ended = decode("wuhan.HandEnded", schema_version("wuhan.HandEnded"), d)
        how = {"self_draw": "by self-draw", "discard_win": "on a discard", "robbed_kong": "robbing a kong"}
        source = f" from {screen.who(d['source'])}" if d.get("source") is not None else ""
        lines = [f"hand over: {screen.does(d['winner'], 'win')} {how.get(d['outcome'], d['outcome'])} "
                 f"with {d['tile']}{source}", *(f"  {line}" for line in explain(ended.settlement))]
    for s, hand in enumerate(d.get("hands") or ()):
        if hand:
            lines.append(f"  {screen.who(s):<16} {tiles(hand)}")
    return [*lines, f"  this hand: {screen.scores(d['deltas'])}"]


def _match_ended(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"the match is over: {screen.scores(d['scores'])}"]


# -- daqi --------------------------------------------------------------------------------------

def _suit(suit: int | None) -> str:
    return "none (only the 常主: jokers, 7s and 2s)" if suit is None else SUIT_SYMBOLS[suit]


def _daqi_view(screen: Screen, reply: Any, v: Any) -> list[str]:
    lines = [f"hand {v.hand_number} · {v.phase.replace('_', ' ')} · scores: {screen.scores(v.scores)}"]
    if v.phase == "dealing":
        lines.append(f"dealt {v.dealt} of 100 cards")
    if v.flip is not None:
        lines.append(f"翻牌 (face up): {in_order(v.flip.cards)} to {screen.who(v.flip.seat)}")
    if v.bids:
        lines.append("bids: " + ", ".join(f"{screen.who(b.seat)} {in_order(b.cards)}" for b in v.bids))
    if v.declarer is not None:
        trumps = "" if v.trumps is None else f" · trumps {_suit(v.trumps.trump_suit)}"
        friend = "" if v.friend_card is None else f" · friend card {v.friend_card}"
        known = "" if v.friend is None else f" · friend: {screen.who(v.friend)}"
        lines.append(f"庄家 {screen.who(v.declarer)}{trumps}{friend}{known}")
    if v.trick:
        lines.append("this trick: " + " · ".join(f"{screen.who(p.seat)} {in_order(p.cards)}" for p in v.trick))
    if any(v.won):
        lines.append("points won: " + ", ".join(f"{screen.who(s)} {p}" for s, p in enumerate(v.won)))
    if v.bottom:
        lines.append(f"the bottom you buried: {in_order(v.bottom)}")
    lines.append(f"your hand ({len(v.hand)}): {in_order(v.hand)}")
    return lines


def _daqi_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"hand {d['number']} begins: the deal starts with {screen.who(d['dealer'])} "
            f"(the deck's commitment: {d['commitment'][:16]}…)"]


def _dealt(screen: Screen, d: dict[str, Any]) -> list[str]:
    n = d["index"] + 1
    lines = []
    if d.get("face_up"):
        lines.append(f"翻牌: card {n} is dealt face up to {screen.who(d['seat'])}: {d['card']}")
    if n == 1 or n % DEAL_PROGRESS_EVERY == 0:
        lines.append(f"dealing… {n}/100 cards")
    return lines


def _bid(screen: Screen, d: dict[str, Any]) -> list[str]:
    over = " (反主)" if d.get("overcall") else ""
    return [f"{screen.does(d['seat'], 'bid')} {in_order(d['cards'])}{over}"]


def _bidding_closed(screen: Screen, d: dict[str, Any]) -> list[str]:
    how = " (decided by the 翻牌: nobody bid)" if d.get("by_flip") else ""
    return [f"bidding closed: {screen.who(d['declarer'])} is 庄家, trumps {_suit(d['trump_suit'])}{how}"]


def _bottom_taken(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.does(d['seat'], 'take')} up the bottom (8 cards)"
            + (f": {in_order(d['cards'])}" if d.get("cards") else "")]


def _bottom_buried(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.does(d['seat'], 'bury')} 8 cards"
            + (f": {in_order(d['cards'])}" if d.get("cards") else "")]


def _play_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"play starts: {screen.who(d['declarer'])} leads; trumps {_suit(d['trump_suit'])}"]


def _played(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.does(d['seat'], 'play')} {in_order(d['cards'])}"]


def _throw_failed(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"{screen.who(d['seat'])} tried to throw {in_order(d['cards'])}, but {in_order(d['forced'])} "
            "could be beaten: only that is played"]


def _trick_won(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"trick {d['trick']} to {screen.who(d['seat'])} ({d['points']} points)"]


def _friend(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"the friend shows: {screen.who(d['seat'])}"]


def _daqi_result(screen: Screen, d: dict[str, Any]) -> list[str]:
    declarer, friend = d["declarer"], d.get("friend")
    side = f"{screen.who(declarer)} with {screen.who(friend)}" if friend is not None else \
        f"{screen.who(declarer)} alone (1 vs 4)"
    bottom = d["bottom_points"] * d["kou_di"]
    tricks = d["taker_points"] - bottom
    kou = (f" + bottom {d['bottom_points']} × {d['kou_di']} (抠底)" if d["kou_di"] else "")
    grade = d["grade"]
    base = int(screen.options.get("base", 1))
    label = DAQI_OUTCOMES.get(grade, str(grade)).replace("_", " ")
    return [
        f"hand over: 庄家方 {side}",
        f"  the takers (抓分方) scored {tricks} in tricks{kou} = {d['taker_points']} points",
        f"  grade {signed(grade)} ({label}) × base {base}: each taker "
        + (f"pays {grade * base}" if grade > 0 else f"receives {-grade * base}"),
        f"  bottom: {in_order(d['bottom'])}",
        f"  this hand: {screen.scores(d['deltas'])}",
    ]


# -- the table ---------------------------------------------------------------------------------

def _timed_out(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["seat"] != screen.seat:
        return []
    return ["you ran out of time: the server played for you" +
            (" (two in a row: auto-play is on until you act or take your seat back)"
             if d.get("streak", 0) >= 2 else "")]


def _claim_timed_out(screen: Screen, d: dict[str, Any]) -> list[str]:
    if not d.get("streak", 0):  # told to this seat alone: who is asked in a claim window is hidden
        return []
    return ["you let a claim window pass: the server answered for you" +
            (" (two in a row: it answers your claim windows until you act)" if d["streak"] >= 2 else "")]


def _auto_play(screen: Screen, d: dict[str, Any]) -> list[str]:
    on = d.get("on", True)
    line = f"auto-play (托管) {'on' if on else 'off'} for {screen.who(d['seat'])}"
    if d["seat"] == screen.seat:
        line += f" — {TAKE_BACK_HINT}" if on else ": your seat is yours again"
    return [line]


def _claim_auto_play(screen: Screen, d: dict[str, Any]) -> list[str]:
    return ["the server answers your claim windows until you act" if d.get("on", True)
            else "your claim windows are yours again"]


def _created(screen: Screen, d: dict[str, Any]) -> list[str]:
    screen.options = dict(d.get("options") or {})
    return []


_EVENTS: dict[str, Callable[[Screen, dict[str, Any]], list[str]]] = {
    "table.Created": _created,
    "table.SeatTimedOut": _timed_out,
    "table.AutoPlaySet": _auto_play,
    "table.ClaimTimedOut": _claim_timed_out,
    "table.ClaimAutoPlaySet": _claim_auto_play,
    "mahjong.TileDiscarded": _discarded,
    "mahjong.TileDrawn": _drawn,
    "mahjong.Ponged": _ponged,
    "mahjong.Konged": _konged,
    "koudian.ReadyDeclared": _ready,
    "koudian.ClaimWindowOpened": _claim_window,
    "koudian.DealerChosen": _dealer_chosen,
    "koudian.HandStarted": _koudian_started,
    "koudian.HandEnded": _koudian_result,
    "koudian.MatchEnded": _match_ended,
    "wuhan.DealerChosen": _dealer_chosen,
    "wuhan.HandStarted": _koudian_started,
    "wuhan.IndicatorTurned": _indicator,
    "wuhan.LaidOut": _laid_out,
    "wuhan.ClaimWindowOpened": _claim_window,
    "wuhan.Chowed": _chowed,
    "wuhan.HandEnded": _wuhan_result,
    "wuhan.MatchEnded": _match_ended,
    "jj.HandStarted": _jj_started,
    "jj.FlowerShown": _flower,
    "jj.Chowed": _chowed,
    "jj.ReadyDeclared": _jj_ready,
    "jj.ClaimWindowOpened": _claim_window,
    "jj.Won": _jj_won,
    "jj.HandEnded": _jj_ended,
    "jj.MatchEnded": _match_ended,
    "daqi.HandStarted": _daqi_started,
    "daqi.CardDealt": _dealt,
    "daqi.BidMade": _bid,
    "daqi.BiddingClosed": _bidding_closed,
    "daqi.BottomTaken": _bottom_taken,
    "daqi.BottomBuried": _bottom_buried,
    "daqi.PlayStarted": _play_started,
    "daqi.CardsPlayed": _played,
    "daqi.ThrowFailed": _throw_failed,
    "daqi.TrickWon": _trick_won,
    "daqi.FriendRevealed": _friend,
    "daqi.HandEnded": _daqi_result,
}
