import pytest

from engine.core.messages import decode, encode
from engine.daqi.options import Options, make_options


def test_defaults_are_the_specs():
    options = make_options()
    assert (options.deal_interval_ms, options.bid_window_ms) == (300, 5000)
    assert (options.allow_throw, options.must_follow_tractor, options.trump_chain_tractors) == (
        False, True, False
    )
    assert (options.threshold, options.threshold_step, options.base) == (80, 40, 1)


def test_overrides_replace_defaults():
    assert make_options({"deal_interval_ms": 0, "allow_throw": True}) == Options(
        deal_interval_ms=0, allow_throw=True
    )


def test_thresholds_may_be_given_as_the_spec_writes_them():
    assert make_options({"thresholds": [100, 30]}) == Options(threshold=100, threshold_step=30)


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"trumps": 1}, "trumps"),
        ({"base": 0}, "base"),
        ({"threshold": "80"}, "threshold"),
        ({"allow_throw": 1}, "allow_throw"),
        ({"deal_interval_ms": True}, "deal_interval_ms"),
        ({"deal_interval_ms": -1}, "deal_interval_ms"),
        ({"thresholds": [80]}, "thresholds"),
        ({"thresholds": [80, 40], "threshold": 80}, "thresholds"),
    ],
)
def test_a_bad_option_raises_value_error_naming_it(overrides, named):
    with pytest.raises(ValueError, match=named):
        make_options(overrides)


def test_options_are_frozen_and_stored_by_value():
    options = make_options({"base": 2})
    with pytest.raises(AttributeError):
        options.base = 3
    assert decode(*encode(options)) == options
