"""JSON text as `json.dumps` writes it, with an encoder made once.

`json.dumps` with any option builds a new encoder (and its C scanner) on every call; on the
paths that encode every event of every action that was a measurable share of the server's CPU
(issue 18). These encoders are made once with the very C encoder `json.dumps` uses, so the text
is byte for byte the same. None checks for cycles: their values come from encoded dataclasses
or the event store's checks, and a cycle fails with RecursionError instead of ValueError.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def encoder(*, compact: bool, allow_nan: bool) -> Callable[[Any], str]:
    """`json.dumps(value, ensure_ascii=False, allow_nan=allow_nan)`, with `separators=(",", ":")`
    if `compact`, as a function made once."""
    item, key = (",", ":") if compact else (", ", ": ")
    fallback = json.JSONEncoder(ensure_ascii=False, check_circular=False, allow_nan=allow_nan,
                                separators=(item, key))
    make: Any = getattr(json.encoder, "c_make_encoder", None)  # None: calling it is a TypeError
    try:  # the arguments JSONEncoder.iterencode gives it
        chunks = make(None, fallback.default, json.encoder.encode_basestring, None, key, item,
                      False, False, allow_nan)
    except TypeError:  # a Python without the C accelerator, or one that changed it
        return fallback.encode

    def text(value: Any) -> str:
        return "".join(chunks(value, 0))

    return text
