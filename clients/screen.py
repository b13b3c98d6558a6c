"""What the terminal client (`qipai play`) shows: a seat's view, the table's events and each
hand's result, with tiles and cards in the notation of docs/rules/README.md (`123m 456p EEE`,
`♠A ♥10`) and melds as players write them. Never a Python repr."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from clients import chinese
from engine.core.messages import decode, message_to_json, schema_version
from engine.daqi.cards import SUIT_SYMBOLS
from engine.daqi.settlement import OUTCOMES as DAQI_OUTCOMES
from engine.mahjong.tiles import face_value, parse_tile

HIDDEN = "■"  # a tile or card the seat may not see (a face-down 报听 discard, a concealed kong)
DEAL_PROGRESS_EVERY = 10  # cards: a daqi deal takes 100 of them
TAKE_BACK_HINT = "press t (then Enter) to take your seat back"  # `qipai play` reads the t
TAKE_BACK_HINT_ZH = "输入 t（回车）收回托管"


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
    """Lines to print for one seat at one table; `names[seat]` is how each seat is called.
    `lang` "zh" speaks Chinese and names tiles and cards as Chinese players do (白, 發, 黑桃A);
    "en" speaks English with the docs' notation (P, F, ♠A)."""

    def __init__(self, ruleset: str, seat: int, names: Sequence[str], lang: str = "en") -> None:
        self.ruleset, self.seat, self.names, self.lang = ruleset, seat, list(names), lang
        self.options: dict[str, Any] = {}
        self.flower_shown: str | None = None  # a flower just laid out: the next draw replaces it
        self.stacks: dict[int, int] = {}  # chips per seat, from the table's chip events

    @property
    def zh(self) -> bool:
        return self.lang == "zh"

    def t(self, en: str, zh: str) -> str:
        """The line in this screen's language."""
        return zh if self.zh else en

    def name(self, piece: Any) -> str:
        """A tile or card (or its notation)."""
        return chinese.name(piece) if self.zh else ("" if piece is None else str(piece))

    def hand(self, row: Sequence[Any]) -> str:
        return chinese.hand(row) if self.zh else tiles(row)

    def row(self, row: Sequence[Any]) -> str:
        return chinese.in_order(row) if self.zh else in_order(row)

    def meld(self, kind: str, tile: Any) -> str:
        written = meld(kind, tile)
        if not self.zh or tile is None:
            return written
        if written[0].isdigit():
            return written[:-1] + chinese.SUITS.get(written[-1], written[-1])
        return chinese.name(tile) * len(written)

    def move(self, words: str) -> str:
        """A legal move as listed (`discard 5m`; zh `打 5万`)."""
        return chinese.move(words) if self.zh else words

    def who(self, seat: int | None) -> str:
        if seat is None:
            return self.t("nobody", "无人")
        if seat == self.seat:
            return self.t("you", "你")
        name = self.names[seat] if seat < len(self.names) else ""
        if self.zh:
            return f"{seat}号位（{name}）" if name else f"{seat}号位"
        return f"seat {seat} ({name})" if name else f"seat {seat}"

    def whose(self, seat: int | None) -> str:
        if self.zh:
            return f"{self.who(seat)}的"
        return "your" if seat == self.seat else f"{self.who(seat)}'s"

    def does(self, seat: int | None, verb: str, zh: str = "") -> str:
        """`you discard` / `seat 1 (bot1) discards` (zh: `你打出` / `1号位（bot1）打出`)."""
        if self.zh:
            return f"{self.who(seat)}{zh}"
        if seat == self.seat:
            return f"you {verb}"
        third = verb[:-1] + "ies" if verb.endswith("y") and verb[-2] not in "aeiou" else (
            verb + "es" if verb.endswith(("s", "sh", "ch", "x")) else verb + "s")
        return f"{self.who(seat)} {third}"

    def scores(self, deltas: Sequence[int]) -> str:
        return self.t(", ", "，").join(f"{self.who(s)} {signed(d)}" for s, d in enumerate(deltas))

    def chips(self) -> str:
        """Every seat's stack, on a table where chips move ("" on a free one)."""
        if not self.stacks:
            return ""
        return self.t(", ", "，").join(f"{self.who(s)} {self.stacks[s]:,}" for s in sorted(self.stacks))

    # -- events ------------------------------------------------------------------------------

    def event(self, type_: str, data: dict[str, Any]) -> list[str]:
        """What one event (as this seat may see it) means, in a line or a few; [] for noise."""
        handler = _EVENTS.get(type_)
        return handler(self, data) if handler else []

    # -- views -------------------------------------------------------------------------------

    def view(self, reply: Any, view: Any) -> list[str]:
        """The table as this seat sees it before a decision."""
        head = self.t(f"— table {reply.table_id} · version {reply.version} · you are seat {reply.seat}",
                      f"— 牌桌 {reply.table_id} · 第 {reply.version} 步 · 你是 {reply.seat} 号位")
        lines = [head]
        body = _daqi_view if self.ruleset == "daqi" else _mahjong_view
        lines += body(self, reply, view)
        if self.stacks:
            lines.append(self.t(f"chips: {self.chips()}", f"筹码：{self.chips()}"))
        if reply.seat in reply.auto_play:
            lines.append(self.t(f"auto-play (托管) is on for you: the server plays your seat — {TAKE_BACK_HINT}",
                                f"你处于托管中：服务器替你出牌 — {TAKE_BACK_HINT_ZH}"))
        others = [self.who(s) for s in reply.auto_play if s != reply.seat]
        if others:
            lines.append(self.t("on auto-play: ", "托管中：") + self.t(", ", "，").join(others))
        return lines


# -- mahjong (koudian, jj, wuhan) ---------------------------------------------------------------

def _mahjong_view(screen: Screen, reply: Any, v: Any) -> list[str]:
    t, who = screen.t, screen.who
    lines = [t(f"hand {v.hands_played + 1} · dealer {who(v.dealer)} · {v.wall_live} tiles left "
               f"in the wall · points: {screen.scores(v.scores)}",
               f"第 {v.hands_played + 1} 局 · 庄家 {who(v.dealer)} · 牌墙剩 {v.wall_live} 张 · "
               f"积分：{screen.scores(v.scores)}")]
    if getattr(v, "wild", None) is not None:
        lines.append(t(f"混 wild: {v.wild} (the indicator {v.indicator})",
                       f"混牌：{screen.name(v.wild)}（翻牌 {screen.name(v.indicator)}）"))
    if getattr(v, "laizi", None) is not None:
        lines.append(t(f"赖子 wild: {v.laizi} · skins {in_order(v.skins)} (the indicator {v.indicator})",
                       f"赖子：{screen.name(v.laizi)} · 皮子 {screen.row(v.skins)}"
                       f"（翻牌 {screen.name(v.indicator)}）"))
    laid = [f"{who(s)} {screen.row(row)}" for s, row in enumerate(getattr(v, "laid", ())) if row]
    if laid:
        lines.append(t("laid out (赖子 and skins): ", "已杠出的赖子和皮子：") + t(", ", "，").join(laid))
    flowers = [f"{who(s)} {screen.row(f)}" for s, f in enumerate(getattr(v, "flowers", ())) if f]
    if flowers:
        lines.append(t("flowers: ", "花牌：") + t(", ", "，").join(flowers))
    for s in range(len(v.hand_sizes)):
        melds = " ".join(screen.meld(m.kind, m.tile) + ("" if m.source is None else f"←{m.source}")
                         for m in (v.melds[s] if s < len(v.melds) else ()))
        river = screen.row(v.rivers[s]) if s < len(v.rivers) else ""
        declared = getattr(v, "ready", ())  # wuhan has no 报听
        ready = t(" · ready (报听)", " · 已报听") if s < len(declared) and declared[s] else ""
        lines.append(f"  {who(s):<16} " + t(f"{v.hand_sizes[s]:>2} tiles", f"{v.hand_sizes[s]:>2} 张")
                     + ready + (t(" · melds ", " · 副露 ") + melds if melds else "")
                     + t(" · river: ", " · 牌河：") + (river or "-"))
    hand = screen.hand(v.hand)
    if v.drawn is not None:
        lines.append(t(f"your hand: {hand}  · just drawn: {v.drawn}",
                       f"你的手牌：{hand}  · 刚摸到：{screen.name(v.drawn)}"))
    else:
        lines.append(t(f"your hand: {hand}", f"你的手牌：{hand}"))
    if getattr(v, "waits", ()):
        lines.append(t(f"you are ready, waiting on {in_order(v.waits)}", f"你已听牌，听 {screen.row(v.waits)}"))
    if v.phase in ("claims", "robbing") and v.claim_tile is not None:
        if v.phase == "robbing":
            lines.append(t(f"{who(v.turn)} adds a kong of {v.claim_tile}: your answer?",
                           f"{who(v.turn)}补杠 {screen.name(v.claim_tile)}：你要抢杠吗？"))
        else:
            lines.append(t(f"{who(v.turn)} discarded {v.claim_tile}: your answer?",
                           f"{who(v.turn)}打出 {screen.name(v.claim_tile)}：你要吗？"))
    if any(v.rivers[s] and None in v.rivers[s] for s in range(len(v.rivers))):
        lines.append(t(f"({HIDDEN}: a face-down 报听 discard)", f"（{HIDDEN}：报听时扣下的牌）"))
    return lines


def _discarded(screen: Screen, d: dict[str, Any]) -> list[str]:
    auto = screen.t(" (auto-play)", "（托管）") if d.get("auto") else ""
    return [f"{screen.does(d['seat'], 'discard', '打出')} {screen.name(d['tile'])}{auto}"]


def _drawn(screen: Screen, d: dict[str, Any]) -> list[str]:
    # jj draws from the tail after a flower (补花) as after a kong: the event before says which.
    after_flower, screen.flower_shown = screen.flower_shown, None
    if d["seat"] != screen.seat or d.get("tile") is None:
        return []  # another's draw: the next discard says more
    tile = screen.name(d["tile"])
    if not d.get("from_tail"):
        return [screen.t(f"you draw {tile}", f"你摸到 {tile}")]
    if after_flower:
        return [screen.t(f"you draw {tile} from the tail: 补花, replacing the flower {after_flower}",
                         f"你补花，从牌尾摸到 {tile}（补 {screen.name(after_flower)}）")]
    return [screen.t(f"you draw {tile} (a kong's replacement, from the tail)", f"你杠后从牌尾补摸 {tile}")]


def _ponged(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"{screen.does(d['seat'], 'pong')} {meld('pong', d['tile'])} on "
                     f"{screen.whose(d['source'])} discard",
                     f"{screen.who(d['seat'])}碰{screen.whose(d['source'])} {screen.name(d['tile'])}："
                     f"{screen.meld('pong', d['tile'])}")]


_KONG_WORDS = {"kong_exposed": ("an exposed kong", "明杠"), "kong_added": ("an added kong", "补杠"),
               "kong_concealed": ("a concealed kong", "暗杠")}


def _konged(screen: Screen, d: dict[str, Any]) -> list[str]:
    en, zh = _KONG_WORDS.get(d["kind"], ("a kong", "杠"))
    return [screen.t(f"{screen.does(d['seat'], 'declare')} {en}: {meld('kong', d.get('tile'))}",
                     f"{screen.who(d['seat'])}{zh}：{screen.meld('kong', d.get('tile'))}")]


def _ready(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["seat"] == screen.seat and d.get("tile"):
        waits = d.get("waits") or ()
        return [screen.t(f"you declare ready (报听), discarding {d['tile']} face down; waiting on "
                         f"{in_order(waits)}",
                         f"你报听，扣下 {screen.name(d['tile'])}；听 {screen.row(waits)}")]
    return [screen.t(f"{screen.does(d['seat'], 'declare')} ready (报听), discarding face down",
                     f"{screen.who(d['seat'])}报听，扣下一张牌")]


def _claim_window(screen: Screen, d: dict[str, Any]) -> list[str]:
    if not d.get("options"):  # a window opens after every discard; this seat has no claim in it
        return []
    tile, source = screen.name(d["tile"]), screen.who(d["source"])
    if d.get("robbing"):
        return [screen.t(f"you may answer: robbing the kong of {d['tile']} from {source}",
                         f"你可以抢{source}的杠：{tile}")]
    return [screen.t(f"you may answer: claiming {d['tile']} from {source}", f"你可以要{source}打出的 {tile}")]


def _koudian_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"hand {d['number']} begins: {screen.does(d['dealer'], 'deal')}"
                     f" (the deck's commitment: {d['commitment'][:16]}…)",
                     f"第 {d['number']} 局开始：{screen.who(d['dealer'])}坐庄"
                     f"（牌墙承诺：{d['commitment'][:16]}…）")]


def _dealer_chosen(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"the dice choose the first dealer: {screen.who(d['dealer'])}",
                     f"掷骰定庄：{screen.who(d['dealer'])}")]


def _how(screen: Screen, d: dict[str, Any]) -> str:
    tile, source = d["tile"], d.get("source")
    name = screen.name(tile)
    if screen.zh:
        return {
            "self_draw": f"自摸 {name}",
            "kong_self_draw": f"暗杠后杠上开花 {name}（算自摸）",
            "kong_replacement_win": f"杠上开花 {name}（算点炮）",
            "discard_win": f"胡{screen.whose(source)} {name}",
            "robbed_kong": f"抢{screen.whose(source)}杠 {name}",
        }.get(d["outcome"], f"（{d['outcome']}）{name}")
    return {
        "self_draw": f"by self-draw with {tile}",
        "kong_self_draw": f"with {tile}, a concealed kong's replacement (a self-draw)",
        "kong_replacement_win": f"with {tile}, a kong's replacement (counted as a discard win)",
        "discard_win": f"on {screen.whose(source)} discard of {tile}",
        "robbed_kong": f"robbing {screen.whose(source)} kong of {tile}",
    }.get(d["outcome"], f"({d['outcome']}) with {tile}")


def _this_hand(screen: Screen, deltas: Sequence[int]) -> str:
    """The hand's points per seat (what chips move follows: `table.HandSettled`)."""
    return screen.t(f"  this hand, in points: {screen.scores(deltas)}", f"  本局积分：{screen.scores(deltas)}")


def _shown_hands(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [f"  {screen.who(s):<16} {screen.hand(hand)}" for s, hand in enumerate(d.get("hands") or ()) if hand]


def _koudian_result(screen: Screen, d: dict[str, Any]) -> list[str]:
    t = screen.t
    deltas = d["deltas"]
    if d["outcome"] == "draw":
        head = [t("hand over: a draw (流局), the live wall is used up; nobody pays", "本局结束：流局，牌墙摸完，无人付分")]
    elif d["outcome"] == "kong_draw":
        head = [t("hand over: a draw: all three others were ready and waited on the kong's tile; nobody pays",
                  "本局结束：流局，其余三家都已报听且听这张杠牌，无人付分")]
    else:
        tile = d["tile"]
        worth = face_value(parse_tile(tile))
        doubled = d["outcome"] in ("self_draw", "kong_self_draw")
        factors = t(f"{worth} (face value of {tile})" + (" × 2 (self-draw)" if doubled else ""),
                    f"{worth}（{screen.name(tile)} 的点数）" + (" × 2（自摸）" if doubled else ""))
        base = int(screen.options.get("base_score", 1))
        score = d["points"] * base
        if d.get("payer") is not None:
            pays = t(f"{screen.does(d['payer'], 'pay')} for all three (包): 3 × {score} = {3 * score}",
                     f"{screen.who(d['payer'])}包三家：3 × {score} = {3 * score}")
        else:
            pays = t(f"each of the three others pays {score}", f"其余三家各付 {score}")
        head = [t(f"hand over: {screen.does(d['winner'], 'win')} {_how(screen, d)}",
                  f"本局结束：{screen.who(d['winner'])}{_how(screen, d)}"),
                t(f"  points: {factors} = {d['points']}" + (f" × base score {base}" if base != 1 else ""),
                  f"  分数：{factors} = {d['points']}" + (f" × 底分 {base}" if base != 1 else "")),
                f"  {pays}"]
    face_down = [f"{screen.who(s)} {screen.name(x)}" for s, x in enumerate(d.get("face_down") or ()) if x]
    if face_down:
        head.append(t("  face-down 报听 discards: ", "  报听扣下的牌：") + t(", ", "，").join(face_down))
    return [*head, *_shown_hands(screen, d), _this_hand(screen, deltas)]


def _jj_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    lines = _koudian_started(screen, d)[:1]
    if d.get("wild"):
        lines.append(screen.t(f"  混 (wild) {d['wild']}, the indicator {d['indicator']}",
                              f"  混牌 {screen.name(d['wild'])}，翻牌 {screen.name(d['indicator'])}"))
    return lines


def _flower(screen: Screen, d: dict[str, Any]) -> list[str]:
    screen.flower_shown = d["flower"]
    return [screen.t(f"{screen.does(d['seat'], 'show')} the flower {d['flower']}",
                     f"{screen.who(d['seat'])}补花：{screen.name(d['flower'])}")]


def _chowed(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"{screen.does(d['seat'], 'chow')} {meld('chow', parse_tile(d['low']))} on "
                     f"{screen.whose(d['source'])} discard of {d['tile']}",
                     f"{screen.who(d['seat'])}吃{screen.whose(d['source'])} {screen.name(d['tile'])}："
                     f"{screen.meld('chow', parse_tile(d['low']))}")]


def _jj_ready(screen: Screen, d: dict[str, Any]) -> list[str]:
    heavenly = " (天听)" if d.get("heavenly") else ""
    return [screen.t(f"{screen.does(d['seat'], 'declare')} ready (报听){heavenly}, discarding {d['tile']}",
                     f"{screen.who(d['seat'])}报听{heavenly.strip()}，打出 {screen.name(d['tile'])}")]


_JJ_HOW = {"self_draw": ("by self-draw", "自摸"), "discard_win": ("on a discard", "点炮胡"),
           "robbed_kong": ("robbing a kong", "抢杠胡")}
_JJ_REASONS = {"part": ("20% for the set it fed", "喂牌的两成"), "discard": ("the discarder", "点炮"),
               "self_draw": ("a share of the self-draw", "自摸分摊")}


def _jj_won(screen: Screen, d: dict[str, Any]) -> list[str]:
    scored = d["scored"]
    how_en, how_zh = _JJ_HOW.get(d["how"], (d["how"].replace("_", " "), d["how"]))
    src = d.get("source")
    lines = [screen.t(f"hand over: {screen.does(d['seat'], 'win')} {how_en} with {d['tile']}"
                      + (f" from {screen.who(src)}" if src is not None else ""),
                      f"本局结束：{screen.who(d['seat'])}{how_zh} {screen.name(d['tile'])}"
                      + (f"（{screen.who(src)}放炮）" if src is not None else ""))]
    for fan in scored["fans"]:
        times = f" × {fan['times']}" if fan.get("times", 1) != 1 else ""
        lines.append(f"  {fan['name']} {fan['value']}番{times}")
    if scored.get("excluded"):
        lines.append(screen.t(f"  (not counted, excluded by the others: {', '.join(scored['excluded'])})",
                              f"  （不计：{'、'.join(scored['excluded'])}）"))
    lines.append(f"  = {scored['total']}番")
    for pay in d.get("payments") or ():
        en, zh = _JJ_REASONS.get(pay["reason"], (pay["reason"], pay["reason"]))
        lines.append(screen.t(f"  {screen.does(pay['payer'], 'pay')} {pay['points']} to "
                              f"{screen.who(pay['payee'])} ({en})",
                              f"  {screen.who(pay['payer'])}付给{screen.who(pay['payee'])} {pay['points']}（{zh}）"))
    return lines


def _jj_ended(screen: Screen, d: dict[str, Any]) -> list[str]:
    lines = [] if d["outcome"] != "draw" else [
        screen.t("hand over: a draw (荒庄), the wall is used up; nobody pays", "本局结束：荒庄，牌墙摸完，无人付分")]
    return [*lines, *_shown_hands(screen, d), _this_hand(screen, d["deltas"])]


def _indicator(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"the indicator {d['indicator']}: 赖子 (wild) {d['laizi']}, skins {in_order(d['skins'])}",
                     f"翻牌 {screen.name(d['indicator'])}：赖子 {screen.name(d['laizi'])}，"
                     f"皮子 {screen.row(d['skins'])}")]


def _laid_out(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"{screen.does(d['seat'], 'lay')} out {d['tile']} ({d['kong']})",
                     f"{screen.who(d['seat'])}杠出 {screen.name(d['tile'])}（{d['kong']}）")]


def _wuhan_result(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["outcome"] == "draw" or d.get("settlement") is None:
        lines = [screen.t("hand over: a draw (荒庄); nobody pays", "本局结束：荒庄，无人付分")]
    else:
        from engine.wuhan.game import explain  # each loser's amount as a formula

        ended = decode("wuhan.HandEnded", schema_version("wuhan.HandEnded"), d)
        how = {"self_draw": ("by self-draw", "自摸"), "discard_win": ("on a discard", "点炮胡"),
               "robbed_kong": ("robbing a kong", "抢杠胡")}
        en, zh = how.get(d["outcome"], (d["outcome"], d["outcome"]))
        src = d.get("source")
        lines = [screen.t(f"hand over: {screen.does(d['winner'], 'win')} {en} with {d['tile']}"
                          + (f" from {screen.who(src)}" if src is not None else ""),
                          f"本局结束：{screen.who(d['winner'])}{zh} {screen.name(d['tile'])}"
                          + (f"（{screen.who(src)}放炮）" if src is not None else "")),
                 *(f"  {line}" for line in explain(ended.settlement))]
    return [*lines, *_shown_hands(screen, d), _this_hand(screen, d["deltas"])]


def _match_ended(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"the match is over, in points: {screen.scores(d['scores'])}",
                     f"整场结束，积分：{screen.scores(d['scores'])}")]


# -- daqi --------------------------------------------------------------------------------------

def _suit(screen: Screen, suit: int | None) -> str:
    if suit is None:
        return screen.t("none (only the 常主: jokers, 7s and 2s)", "无主（只有常主：大小王、7 和 2）")
    return screen.t(SUIT_SYMBOLS[suit], chinese.CARD_SUITS[SUIT_SYMBOLS[suit]])


def _daqi_view(screen: Screen, reply: Any, v: Any) -> list[str]:
    t, who, row = screen.t, screen.who, screen.row
    phases = {"dealing": "发牌", "bidding": "亮主", "bottom": "扣底", "playing": "出牌"}
    lines = [t(f"hand {v.hand_number} · {v.phase.replace('_', ' ')} · points: {screen.scores(v.scores)}",
               f"第 {v.hand_number} 局 · {phases.get(v.phase, v.phase)} · 积分：{screen.scores(v.scores)}")]
    if v.phase == "dealing":
        lines.append(t(f"dealt {v.dealt} of 100 cards", f"已发 {v.dealt}/100 张"))
    if v.flip is not None:
        lines.append(t(f"翻牌 (face up): {in_order(v.flip.cards)} to {who(v.flip.seat)}",
                       f"翻牌：{row(v.flip.cards)} 发给{who(v.flip.seat)}"))
    if v.bids:
        lines.append(t("bids: ", "亮主：") + t(", ", "，").join(f"{who(b.seat)} {row(b.cards)}" for b in v.bids))
    if v.declarer is not None:
        trumps = "" if v.trumps is None else t(" · trumps ", " · 主 ") + _suit(screen, v.trumps.trump_suit)
        friend = "" if v.friend_card is None else t(f" · friend card {v.friend_card}",
                                                    f" · 找朋友 {screen.name(v.friend_card)}")
        known = "" if v.friend is None else t(f" · friend: {who(v.friend)}", f" · 朋友：{who(v.friend)}")
        lines.append(f"庄家 {who(v.declarer)}{trumps}{friend}{known}")
    if v.trick:
        lines.append(t("this trick: ", "本轮：") + " · ".join(f"{who(p.seat)} {row(p.cards)}" for p in v.trick))
    if any(v.won):
        lines.append(t("points won: ", "得分：") + t(", ", "，").join(f"{who(s)} {p}" for s, p in enumerate(v.won)))
    if v.bottom:
        lines.append(t(f"the bottom you buried: {in_order(v.bottom)}", f"你扣的底牌：{row(v.bottom)}"))
    lines.append(t(f"your hand ({len(v.hand)}): {in_order(v.hand)}", f"你的手牌（{len(v.hand)} 张）：{row(v.hand)}"))
    return lines


def _daqi_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"hand {d['number']} begins: the deal starts with {screen.who(d['dealer'])} "
                     f"(the deck's commitment: {d['commitment'][:16]}…)",
                     f"第 {d['number']} 局开始：从{screen.who(d['dealer'])}起发牌"
                     f"（牌堆承诺：{d['commitment'][:16]}…）")]


def _dealt(screen: Screen, d: dict[str, Any]) -> list[str]:
    n = d["index"] + 1
    lines = []
    if d.get("face_up"):
        lines.append(screen.t(f"翻牌: card {n} is dealt face up to {screen.who(d['seat'])}: {d['card']}",
                              f"翻牌：第 {n} 张明发给{screen.who(d['seat'])}：{screen.name(d['card'])}"))
    if n == 1 or n % DEAL_PROGRESS_EVERY == 0:
        lines.append(screen.t(f"dealing… {n}/100 cards", f"发牌中… {n}/100 张"))
    return lines


def _bid(screen: Screen, d: dict[str, Any]) -> list[str]:
    over = " (反主)" if d.get("overcall") else ""
    return [screen.t(f"{screen.does(d['seat'], 'bid')} {in_order(d['cards'])}{over}",
                     f"{screen.who(d['seat'])}亮主 {screen.row(d['cards'])}{over.strip()}")]


def _bidding_closed(screen: Screen, d: dict[str, Any]) -> list[str]:
    how = screen.t(" (decided by the 翻牌: nobody bid)", "（无人亮主，由翻牌定）") if d.get("by_flip") else ""
    return [screen.t(f"bidding closed: {screen.who(d['declarer'])} is 庄家, trumps ",
                     f"亮主结束：{screen.who(d['declarer'])}坐庄，主 ")
            + _suit(screen, d["trump_suit"]) + how]


def _bottom_taken(screen: Screen, d: dict[str, Any]) -> list[str]:
    cards = d.get("cards")
    return [screen.t(f"{screen.does(d['seat'], 'take')} up the bottom (8 cards)"
                     + (f": {in_order(cards)}" if cards else ""),
                     f"{screen.who(d['seat'])}拿起底牌（8 张）" + (f"：{screen.row(cards)}" if cards else ""))]


def _bottom_buried(screen: Screen, d: dict[str, Any]) -> list[str]:
    cards = d.get("cards")
    return [screen.t(f"{screen.does(d['seat'], 'bury')} 8 cards" + (f": {in_order(cards)}" if cards else ""),
                     f"{screen.who(d['seat'])}扣底 8 张" + (f"：{screen.row(cards)}" if cards else ""))]


def _play_started(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"play starts: {screen.who(d['declarer'])} leads; trumps ",
                     f"开始出牌：{screen.who(d['declarer'])}首出；主 ") + _suit(screen, d["trump_suit"])]


def _played(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"{screen.does(d['seat'], 'play')} {in_order(d['cards'])}",
                     f"{screen.who(d['seat'])}出 {screen.row(d['cards'])}")]


def _throw_failed(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"{screen.who(d['seat'])} tried to throw {in_order(d['cards'])}, but "
                     f"{in_order(d['forced'])} could be beaten: only that is played",
                     f"{screen.who(d['seat'])}甩牌 {screen.row(d['cards'])} 失败："
                     f"{screen.row(d['forced'])} 管得住，只出这些")]


def _trick_won(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"trick {d['trick']} to {screen.who(d['seat'])} ({d['points']} points)",
                     f"第 {d['trick']} 轮归{screen.who(d['seat'])}（{d['points']} 分）")]


def _friend(screen: Screen, d: dict[str, Any]) -> list[str]:
    return [screen.t(f"the friend shows: {screen.who(d['seat'])}", f"朋友现身：{screen.who(d['seat'])}")]


def _daqi_result(screen: Screen, d: dict[str, Any]) -> list[str]:
    t = screen.t
    declarer, friend = d["declarer"], d.get("friend")
    if friend is not None:
        side = t(f"{screen.who(declarer)} with {screen.who(friend)}", f"{screen.who(declarer)}和{screen.who(friend)}")
    else:
        side = t(f"{screen.who(declarer)} alone (1 vs 4)", f"{screen.who(declarer)}独自（一打四）")
    bottom = d["bottom_points"] * d["kou_di"]
    tricks = d["taker_points"] - bottom
    kou = t(f" + bottom {d['bottom_points']} × {d['kou_di']} (抠底)",
            f" + 底分 {d['bottom_points']} × {d['kou_di']}（抠底）") if d["kou_di"] else ""
    grade = d["grade"]
    base = int(screen.options.get("base", 1))
    label = DAQI_OUTCOMES.get(grade, str(grade)).replace("_", " ")
    return [
        t(f"hand over: 庄家方 {side}", f"本局结束：庄家方 {side}"),
        t(f"  the takers (抓分方) scored {tricks} in tricks{kou} = {d['taker_points']} points",
          f"  抓分方抓分 {tricks}{kou} = {d['taker_points']} 分"),
        t(f"  grade {signed(grade)} ({label}) × base {base}: each taker "
          + (f"pays {grade * base}" if grade > 0 else f"receives {-grade * base}"),
          f"  等级 {signed(grade)}（{label}）× 底 {base}：抓分方每人"
          + (f"付 {grade * base}" if grade > 0 else f"得 {-grade * base}")),
        t(f"  bottom: {in_order(d['bottom'])}", f"  底牌：{screen.row(d['bottom'])}"),
        _this_hand(screen, d["deltas"]),
    ]


# -- the table ---------------------------------------------------------------------------------

def _timed_out(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["seat"] != screen.seat:
        return []
    two = d.get("streak", 0) >= 2
    return [screen.t("you ran out of time: the server played for you"
                     + (" (two in a row: auto-play is on until you act or take your seat back)" if two else ""),
                     "你超时了：服务器替你出了牌" + ("（连续两次：托管中，直到你出牌或收回）" if two else ""))]


def _claim_timed_out(screen: Screen, d: dict[str, Any]) -> list[str]:
    if not d.get("streak", 0):  # told to this seat alone: who is asked in a claim window is hidden
        return []
    return ["you let a claim window pass: the server answered for you" +
            (" (two in a row: it answers your claim windows until you act)" if d["streak"] >= 2 else "")]


def _auto_play(screen: Screen, d: dict[str, Any]) -> list[str]:
    on = d.get("on", True)
    line = screen.t(f"auto-play (托管) {'on' if on else 'off'} for {screen.who(d['seat'])}",
                    f"{screen.who(d['seat'])}{'进入' if on else '退出'}托管")
    if d["seat"] == screen.seat:
        line += screen.t(f" — {TAKE_BACK_HINT}" if on else ": your seat is yours again",
                         f" — {TAKE_BACK_HINT_ZH}" if on else "：你重新掌控座位")
    return [line]


def _claim_auto_play(screen: Screen, d: dict[str, Any]) -> list[str]:
    return ["the server answers your claim windows until you act" if d.get("on", True)
            else "your claim windows are yours again"]


def _created(screen: Screen, d: dict[str, Any]) -> list[str]:
    screen.options = dict(d.get("options") or {})
    return []


def _bought_in(screen: Screen, d: dict[str, Any]) -> list[str]:
    if d["chips"] <= 0:
        return []
    screen.stacks[d["seat"]] = d["chips"]
    return [screen.t(f"{screen.does(d['seat'], 'sit')} down with {d['chips']:,} chips",
                     f"{screen.who(d['seat'])}带 {d['chips']:,} 筹码入座")]


def _settled(screen: Screen, d: dict[str, Any]) -> list[str]:
    """The chips a hand moved, which are not its points: the table's stake makes chips of them
    and 积分最小化 caps each payment at what the payer's stack holds."""
    if not screen.stacks:
        return []  # a free table: no chips move
    moved = dict.fromkeys(screen.stacks, 0)
    for pay in d.get("payments") or ():
        moved[pay["payer"]] = moved.get(pay["payer"], 0) - pay["chips"]
        moved[pay["payee"]] = moved.get(pay["payee"], 0) + pay["chips"]
    for seat, change in moved.items():
        screen.stacks[seat] = screen.stacks.get(seat, 0) + change
    sep = screen.t(", ", "，")
    changes = sep.join(f"{screen.who(s)} {signed(c)}" for s, c in sorted(moved.items()))
    return [screen.t(f"  chips moved: {changes} · stacks now: {screen.chips()}",
                     f"  筹码变动：{changes} · 现有筹码：{screen.chips()}")]


def _cashed_out(screen: Screen, d: dict[str, Any]) -> list[str]:
    screen.stacks.pop(d["seat"], None)
    return [screen.t(f"{screen.whose(d['seat'])} stack of {d['chips']:,} chips goes back to the account",
                     f"{screen.who(d['seat'])}的 {d['chips']:,} 筹码退回账户")]


_EVENTS: dict[str, Callable[[Screen, dict[str, Any]], list[str]]] = {
    "table.Created": _created,
    "table.SeatTimedOut": _timed_out,
    "table.AutoPlaySet": _auto_play,
    "table.StackBoughtIn": _bought_in,
    "table.HandSettled": _settled,
    "table.StackCashedOut": _cashed_out,
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
