"""What `qipai play` prints: the docs' notation, melds as players write them, results with their
factors; never a Python repr."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import pytest

from clients.screen import Screen, in_order, meld, tiles
from engine import rulesets
from engine.core.contract import StartHand, Status
from engine.core.messages import message_to_json
from engine.driver import apply, bot_command, fold
from engine.mahjong.tiles import parse_tiles
from engine.selfplay import hand_secrets

REPR = re.compile(r"\b[A-Z][A-Za-z]+\(|None|\(\)|\[\]")  # Meld(...), None, (), []


def test_a_hand_is_written_with_number_tiles_grouped_by_suit():
    assert tiles(parse_tiles("4m 6m 8m 4p 5p 2s 3s 9s E N P")) == "468m 45p 239s E N P"


def test_a_river_keeps_its_order_and_hides_a_face_down_discard():
    assert in_order([*parse_tiles("9m C"), None, *parse_tiles("2m")]) == "9m C ■ 2m"


@pytest.mark.parametrize(("kind", "tile", "written"), [
    ("pong", "1p", "111p"), ("pong", "E", "EEE"), ("kong_exposed", "5s", "5555s"),
    ("kong_concealed", None, "■■■■"), ("chow", "3m", "345m"),
])
def test_a_meld_is_written_as_players_write_it(kind, tile, written):
    assert meld(kind, None if tile is None else parse_tiles(tile)[0]) == written


def koudian_screen() -> Screen:
    screen = Screen("koudian", 0, ["you", "bot1", "bot2", "bot3"])
    screen.event("table.Created", {"options": {"base_score": 1}})
    return screen


def test_who_discarded_what_is_said_in_words():
    screen = koudian_screen()
    assert screen.event("mahjong.TileDiscarded", {"seat": 2, "tile": "1s", "auto": False}) == [
        "seat 2 (bot2) discards 1s"]
    assert screen.event("mahjong.TileDiscarded", {"seat": 0, "tile": "C", "auto": True}) == [
        "you discard C (auto-play)"]
    assert screen.event("mahjong.Ponged", {"seat": 1, "tile": "E", "source": 0}) == [
        "seat 1 (bot1) pongs EEE on your discard"]


def test_a_self_draw_result_shows_face_value_times_two_paid_by_each_of_three():
    lines = koudian_screen().event("koudian.HandEnded", {
        "outcome": "self_draw", "deltas": [-12, -12, 36, -12], "winner": 2, "tile": "6p",
        "source": None, "points": 12, "payer": None, "hands": [[], [], ["4p", "5p"], []],
        "face_down": [None, None, "5m", None]})
    assert lines[0] == "hand over: seat 2 (bot2) wins by self-draw with 6p"
    assert lines[1] == "  points: 6 (face value of 6p) × 2 (self-draw) = 12"
    assert lines[2] == "  each of the three others pays 12"
    assert "face-down 报听 discards: seat 2 (bot2) 5m" in lines[3]
    assert lines[-1] == "  this hand, in points: you −12, seat 1 (bot1) −12, seat 2 (bot2) +36, seat 3 (bot3) −12"


def test_a_discard_win_paid_for_three_names_the_discarder():
    lines = koudian_screen().event("koudian.HandEnded", {
        "outcome": "discard_win", "deltas": [-27, 0, 27, 0], "winner": 2, "tile": "9p",
        "source": 0, "points": 9, "payer": 0, "hands": [], "face_down": []})
    assert lines[0] == "hand over: seat 2 (bot2) wins on your discard of 9p"
    assert lines[2] == "  you pay for all three (包): 3 × 9 = 27"


def test_a_daqi_result_shows_tricks_bottom_grade_and_base():
    screen = Screen("daqi", 0, ["you", "bot1", "bot2", "bot3", "bot4"])
    screen.event("table.Created", {"options": {"base": 2}})
    lines = screen.event("daqi.HandEnded", {
        "declarer": 3, "friend": 0, "won": [40, 10, 15, 60, 55], "bottom": ["♣3", "♣4"],
        "bottom_points": 10, "kou_di": 2, "taker_points": 100, "grade": -1,
        "deltas": [-2, 2, 2, -4, 2]})
    assert lines[0] == "hand over: 庄家方 seat 3 (bot3) with you"
    assert lines[1] == "  the takers (抓分方) scored 80 in tricks + bottom 10 × 2 (抠底) = 100 points"
    assert lines[2] == "  grade −1 (takers win) × base 2: each taker receives 2"


def test_a_daqi_deal_shows_its_progress_and_the_face_up_card():
    screen = Screen("daqi", 0, ["you", "bot1", "bot2", "bot3", "bot4"])
    assert screen.event("daqi.CardDealt", {"index": 9, "seat": 4, "card": None, "face_up": False}) == [
        "dealing… 10/100 cards"]
    assert screen.event("daqi.CardDealt", {"index": 47, "seat": 4, "card": "♦A", "face_up": True}) == [
        "翻牌: card 48 is dealt face up to seat 4 (bot4): ♦A"]


def test_a_jj_win_lists_every_fan_and_who_pays():
    screen = Screen("jj", 0, ["you", "bot1", "bot2", "bot3"])
    lines = screen.event("jj.Won", {
        "seat": 0, "how": "discard_win", "tile": "5m", "source": 2,
        "scored": {"fans": [{"name": "和绝张", "value": 4, "times": 1}, {"name": "花牌", "value": 2, "times": 2}],
                   "excluded": [], "total": 8, "counted": 8},
        "payments": [{"payer": 2, "payee": 0, "points": 8, "reason": "discard"}], "deltas": [8, 0, -8, 0]})
    assert lines == ["hand over: you win on a discard with 5m from seat 2 (bot2)", "  和绝张 4番",
                     "  花牌 2番 × 2", "  = 8番", "  seat 2 (bot2) pays 8 to you (the discarder)"]


@pytest.mark.parametrize("ruleset", ["koudian", "daqi", "wuhan", "jj"])
def test_every_event_and_view_of_a_bots_hand_reads_without_a_python_repr(ruleset):
    # A whole hand played by bots: every event as seat 0 sees it, and seat 0's view after each.
    rs = rulesets.get(ruleset)
    options = rs.options({})
    seats = rs.seats(options)
    screen = Screen(ruleset, 0, ["you", *(f"bot{i}" for i in range(1, seats))])
    log = list(rs.create("table-screen", options))
    state = fold(rs, log)
    state = apply(rs, state, StartHand(*hand_secrets(7, 1)), log)
    rng = random.Random(7)
    while rs.status(state) is Status.IN_HAND:
        state = apply(rs, state, bot_command(rs, state, seats, rs.bots["greedy"], rng), log)
    reply = SimpleNamespace(table_id="table-screen", version=len(log), seat=0, auto_play=[1])
    shown = []
    for n, ev in enumerate(log):
        seen = rs.redact(ev, 0)
        if seen is not None:
            data = message_to_json(seen)
            shown += screen.event(data["type"], data["data"])
        if n % 25 == 0:
            shown += screen.view(reply, rs.view(fold(rs, log[: n + 1]), 0))
    assert any(line.startswith(("hand over", "  this hand")) for line in shown)
    assert any("on auto-play: seat 1 (bot1)" in line for line in shown)
    for line in shown:
        assert not REPR.search(line), line


def test_auto_play_on_for_your_seat_says_how_to_take_it_back_and_off_says_it_is_yours():
    screen = Screen("koudian", 0, ["you", "bot1", "bot2", "bot3"])
    (on,) = screen.event("table.AutoPlaySet", {"seat": 0, "on": True})
    assert on.startswith("auto-play (托管) on for you") and "press t" in on
    assert screen.event("table.AutoPlaySet", {"seat": 0, "on": False}) == [
        "auto-play (托管) off for you: your seat is yours again"]
    assert screen.event("table.AutoPlaySet", {"seat": 2, "on": True}) == ["auto-play (托管) on for seat 2 (bot2)"]


def test_a_draw_from_the_tail_after_a_flower_is_the_flowers_replacement_not_a_kongs():
    screen = Screen("jj", 0, ["you", "bot1", "bot2", "bot3"])
    assert screen.event("jj.FlowerShown", {"seat": 0, "flower": "f2"}) == ["you show the flower f2"]
    assert screen.event("mahjong.TileDrawn", {"seat": 0, "tile": "7s", "from_tail": True}) == [
        "you draw 7s from the tail: 补花, replacing the flower f2"]
    assert screen.event("mahjong.Konged", {"seat": 0, "kind": "kong_concealed", "tile": "E"})
    assert screen.event("mahjong.TileDrawn", {"seat": 0, "tile": "9m", "from_tail": True}) == [
        "you draw 9m (a kong's replacement, from the tail)"]


def zh_screen(ruleset: str = "koudian") -> Screen:
    screen = Screen(ruleset, 0, ["you", "bot1", "bot2", "bot3"], lang="zh")
    screen.event("table.Created", {"options": {"base_score": 1}})
    return screen


def test_chinese_names_the_dragons_and_winds_in_characters_not_letters():
    screen = zh_screen()
    assert screen.event("mahjong.TileDiscarded", {"seat": 2, "tile": "P", "auto": False}) == ["2号位（bot2）打出 白"]
    assert screen.event("mahjong.TileDiscarded", {"seat": 0, "tile": "F", "auto": True}) == ["你打出 發（托管）"]
    assert screen.event("mahjong.Ponged", {"seat": 1, "tile": "E", "source": 0}) == ["1号位（bot1）碰你的 东：东东东"]
    assert screen.event("mahjong.TileDrawn", {"seat": 0, "tile": "5m", "from_tail": False}) == ["你摸到 5万"]


def test_chinese_writes_a_hand_grouped_by_suit_with_suit_characters():
    assert Screen("koudian", 0, [], lang="zh").hand(parse_tiles("4m 6m 8m 4p 5p 2s 3s 9s E N P C F")) == \
        "468万 45筒 239条 东 北 白 中 發"


def test_chinese_names_daqi_cards_by_suit_and_the_jokers_by_name():
    screen = zh_screen("daqi")
    assert screen.event("daqi.CardsPlayed", {"seat": 1, "cards": ["♠A", "♥10", "SJ", "BJ"]}) == [
        "1号位（bot1）出 黑桃A 红桃10 小王 大王"]


def test_moves_are_listed_and_may_be_typed_in_chinese():
    from clients.chinese import typed

    screen = zh_screen()
    assert screen.move("discard 5m") == "打 5万"
    assert screen.move("kong kong_concealed P") == "杠 暗杠 白"
    assert typed("打 5万") == "discard 5m" and typed("碰 白") == "pong P" and typed("pass") == "pass"


def test_english_is_there_on_request_with_the_notation():
    screen = Screen("koudian", 0, ["you", "bot1"], lang="en")
    assert screen.event("mahjong.TileDiscarded", {"seat": 1, "tile": "P", "auto": False}) == [
        "seat 1 (bot1) discards P"]


def test_the_chips_a_hand_moved_are_shown_apart_from_its_points():
    # 400 points owed, but a stack of 200 pays 200 chips (积分最小化): the screen says 200.
    screen = Screen("koudian", 0, ["you", "bot1", "bot2", "bot3"])
    for seat in range(4):
        screen.event("table.StackBoughtIn", {"seat": seat, "player_id": f"p{seat}", "chips": 200, "n": 1})
    assert screen.event("table.HandSettled", {"hand": 1, "ruleset": "koudian", "payments": [
        {"payer": 0, "payee": 2, "chips": 200, "reason": "self_draw", "payer_player": "p0",
         "payee_player": "p2"}]}) == [
        "  chips moved: you −200, seat 1 (bot1) +0, seat 2 (bot2) +200, seat 3 (bot3) +0 · "
        "stacks now: you 0, seat 1 (bot1) 200, seat 2 (bot2) 400, seat 3 (bot3) 200"]
    assert zh_screen().event("table.HandSettled", {"hand": 1, "ruleset": "koudian", "payments": []}) == []


def test_a_hands_points_are_labelled_as_points():
    lines = koudian_screen().event("koudian.HandEnded", {
        "outcome": "draw", "deltas": [0, 0, 0, 0], "winner": None, "tile": None, "source": None,
        "points": 0, "payer": None, "hands": [], "face_down": []})
    assert lines[-1] == "  this hand, in points: you +0, seat 1 (bot1) +0, seat 2 (bot2) +0, seat 3 (bot3) +0"


def test_a_rooms_lobby_line_names_its_buy_in_in_either_language():
    from clients.rooms import describe
    from qipai.v1 import matchmaking_pb2

    room = matchmaking_pb2.Room(code="123456", ruleset="koudian", stake=100, seats=4, members=[
        matchmaking_pb2.RoomMember(player_id="ann", seat=0, host=True, ready=True)])
    assert describe(room) == "room 123456 (koudian, stake 100): ann* ✓ | - | - | -"
    assert describe(room, "zh") == "房间 123456（koudian，买入 100 筹码）：ann* ✓ | - | - | -"
