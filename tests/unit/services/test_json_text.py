import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services import json_text

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20)


@given(values)
def test_the_compact_encoder_writes_what_json_dumps_writes(value):
    assert json_text.encoder(compact=True, allow_nan=False)(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@given(values)
def test_the_spaced_encoder_writes_what_json_dumps_writes(value):
    assert json_text.encoder(compact=False, allow_nan=True)(value) == json.dumps(value, ensure_ascii=False)


def test_a_nan_is_refused_where_json_dumps_refuses_it():
    with pytest.raises(ValueError):
        json_text.encoder(compact=True, allow_nan=False)({"x": math.nan})
    assert json_text.encoder(compact=True, allow_nan=True)({"x": math.nan}) == '{"x":NaN}'


def test_what_json_cannot_encode_is_a_type_error():
    with pytest.raises(TypeError):
        json_text.encoder(compact=True, allow_nan=False)({"x": object()})
