"""Views are built from constructor arguments and wire bytes remembered by identity
(protocol/wire.py): what a remembered part stands for must never leak into another field."""

import dataclasses

from engine import rulesets
from engine.daqi.cards import parse_card
from engine.daqi.state import SeatCards
from engine.daqi.view import View as DaqiView
from engine.koudian.view import View as KoudianView
from engine.mahjong.tiles import parse_tile
from protocol import wire
from qipai.v1 import views_pb2


def _koudian(**fields):
    base = dict(seat=0, options=rulesets.get("koudian").options({}), phase="turn", scores=(0,) * 4,
                dealer=0, hands_played=0, passes=0)
    return KoudianView(**(base | fields))


def test_no_rows_and_rows_that_are_empty_are_told_apart_in_either_order():
    # The empty tuple is one object: a list of no rows and an empty row are both it.
    none, empty = _koudian(melds=(), rivers=()), _koudian(melds=((),) * 4, rivers=((),) * 4)
    for first, second in ((none, empty), (empty, none), (none, empty)):
        for view in (first, second):
            msg = wire.view_to_proto("koudian", view).koudian
            assert len(msg.melds) == len(view.melds) and len(msg.rivers) == len(view.rivers)
            assert wire.view_from_proto("koudian", wire.view_to_proto("koudian", view), KoudianView) == view


def test_one_object_in_two_kinds_of_field_is_encoded_for_each():
    tiles = tuple(parse_tile(t) for t in ("1m", "2m", "3m"))
    view = _koudian(hand=tiles, rivers=(tiles, (), (), ()), waits=tiles)
    msg = wire.view_to_proto("koudian", view).koudian
    assert list(msg.hand) == list(msg.waits) == list(msg.rivers[0].tiles) == ["1m", "2m", "3m"]
    assert [list(r.tiles) for r in msg.rivers[1:]] == [[], [], []]


def test_a_part_shared_by_two_views_is_the_same_in_both():
    plays = (SeatCards(1, (parse_card("♠A"),)), SeatCards(2, ()))
    first = DaqiView(seat=1, phase="playing", options=None, scores=(0,) * 5, trick=plays, played=plays)
    second = DaqiView(seat=2, phase="playing", options=None, scores=(0,) * 5, played=plays)
    for view in (first, second, first):
        msg = wire.view_to_proto("daqi", view)
        assert wire.view_from_proto("daqi", msg, DaqiView) == view
    assert len(wire.view_to_proto("daqi", second).daqi.trick) == 0


def test_a_field_at_its_default_and_a_set_optional_field_arrive_as_set_field_by_field():
    view = _koudian(passes=0, hands_played=0, turn=0, dealer=0, drawn=parse_tile("5p"))
    built = wire.view_to_proto("koudian", view)
    by_hand = views_pb2.View()
    target = by_hand.koudian
    target.seat, target.phase, target.dealer, target.turn, target.drawn = 0, "turn", 0, 0, "5p"
    target.scores.extend([0] * 4)
    opts = rulesets.get("koudian").options({})
    for name in target.options.DESCRIPTOR.fields_by_name:
        setattr(target.options, name, getattr(opts, name))
    assert built.SerializeToString(deterministic=True) == by_hand.SerializeToString(deterministic=True)
    assert built.koudian.HasField("turn") and built.koudian.HasField("dealer")


def test_a_part_that_may_change_is_encoded_anew_each_time():
    @dataclasses.dataclass
    class Changing:  # not frozen: its bytes cannot be remembered
        base_score: int

    options = Changing(base_score=2)
    view = _koudian(options=options)
    assert wire.view_to_proto("koudian", view).koudian.options.base_score == 2
    options.base_score = 5
    assert wire.view_to_proto("koudian", view).koudian.options.base_score == 5
