"""Tiles, cards and moves as Chinese players name them, for `qipai play` (its default language).

Tiles: `5万 3筒 7条`, the winds `东 南 西 北`, the dragons `中 發 白`, the flowers `春 夏 秋 冬`;
a hand groups its number tiles by suit as players write them (`468万 45筒 东 白`). Cards:
`黑桃A 红桃10 梅花7 方块2`, the jokers `小王 大王`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SUITS = {"m": "万", "p": "筒", "s": "条"}
HONORS = {"E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "發", "P": "白"}
FLOWERS = {"f1": "春", "f2": "夏", "f3": "秋", "f4": "冬"}
CARD_SUITS = {"♠": "黑桃", "♥": "红桃", "♣": "梅花", "♦": "方块"}
JOKERS = {"SJ": "小王", "BJ": "大王"}
HIDDEN = "■"

# A command's words as `qipai play` lists it (`discard 5m` -> `打 5万`).
MOVES = {"discard": "打", "pong": "碰", "chow": "吃", "kong": "杠", "win": "胡", "pass": "过",
         "declare ready": "报听", "bid": "亮主", "bury": "扣底", "play cards": "出牌",
         "deal next": "发牌", "close claims": "结束抢答",
         "kong_exposed": "明杠", "kong_added": "补杠", "kong_concealed": "暗杠"}


def name(piece: Any) -> str:
    """One tile or card (or its notation) in Chinese; the notation itself if it is neither."""
    text = HIDDEN if piece is None else str(piece)
    if len(text) == 2 and text[0].isdigit() and text[1] in SUITS:
        return text[0] + SUITS[text[1]]
    if text in HONORS:
        return HONORS[text]
    if text in FLOWERS:
        return FLOWERS[text]
    if text in JOKERS:
        return JOKERS[text]
    if text[:1] in CARD_SUITS:
        return CARD_SUITS[text[0]] + text[1:]
    return text


def hand(row: Sequence[Any]) -> str:
    """Tiles as a hand: number tiles grouped by suit (`468万 45筒 东 白`)."""
    groups: list[str] = []
    last_suit = ""
    for piece in row:
        text = HIDDEN if piece is None else str(piece)
        suit = text[1] if len(text) == 2 and text[0].isdigit() and text[1] in SUITS else ""
        if suit and suit == last_suit:
            groups[-1] = groups[-1][:-1] + text[0] + SUITS[suit]
        else:
            groups.append(name(text))
        last_suit = suit
    return " ".join(groups)


def in_order(row: Sequence[Any]) -> str:
    """Tiles or cards one by one (a river, a trick)."""
    return " ".join(name(p) for p in row)


def move(words: str) -> str:
    """A move as listed (`discard 5m`, `kong kong_concealed E`) in Chinese (`打 5万`, `杠 暗杠 东`)."""
    for english in sorted(MOVES, key=len, reverse=True):  # `play cards` before `play`
        if words == english or words.startswith(english + " "):
            rest = words[len(english):].split()
            return " ".join([MOVES[english], *(MOVES.get(w) or name(w) for w in rest)])
    return words


_MOVE_WORDS = {zh: en for en, zh in MOVES.items()}
_NOTATION = {**{v: k for k, v in HONORS.items()}, **{v: k for k, v in FLOWERS.items()}}


def typed(text: str) -> str:
    """A move typed in Chinese (`打 5万`, `碰 白`) in the words and notation the rules parse
    (`discard 5m`, `pong P`); words already in that form pass through."""
    out = []
    for word in text.split():
        if word in _MOVE_WORDS:
            out.append(_MOVE_WORDS[word])
        elif word in _NOTATION:
            out.append(_NOTATION[word])
        elif len(word) == 2 and word[0].isdigit() and word[1] in SUITS.values():
            out.append(word[0] + next(k for k, v in SUITS.items() if v == word[1]))
        else:
            out.append(word)
    return " ".join(out)
