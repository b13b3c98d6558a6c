"""Test vectors for the web table's fair-deal check (web/src/fairness.ts, web/src/mt19937.ts),
made by the Python code the server and the Python client run: the Mersenne Twister of
`random.Random(bytes)`, every ruleset's deck order, the worked example of docs/fairness.md, and
whole hands as one seat's Watch stream showed them, with tampered copies and Python's verdicts.

Regenerate after a change of the derivation (never for hands already played):
    .venv/bin/python -m tests.e2e.web.fairness_vectors > web/test/fairness-vectors.json
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from clients.deals import SeatChecker
from engine import rulesets
from engine.core import fairness
from engine.core.messages import decode, schema_version
from engine.core.shuffle import commitment
from tests.unit.clients.hands import as_json, fair_hand, nonce, seen_by

MT_SEEDS = [b"", b"\x00\x00\x01abc", bytes(range(32)), b"qipai", b"\xff" * 7]
SHUFFLE_SIZES = [1, 2, 3, 10, 108, 136, 140, 700]
BELOW = [1, 5, 144, 2**31, 2**32 - 1]


def mt_vectors() -> list[dict[str, Any]]:
    out = []
    for seed in MT_SEEDS:
        rng = random.Random(seed)
        bits = [rng.getrandbits(32) for _ in range(700)][-5:]  # past the first regeneration
        shuffles = {}
        for n in SHUFFLE_SIZES:
            items = list(range(n))
            random.Random(seed).shuffle(items)
            shuffles[str(n)] = items
        below_rng = random.Random(seed)
        below = [below_rng._randbelow(n) for n in BELOW for _ in range(3)]
        out.append({"seed": seed.hex(), "bits32_696_700": bits, "shuffles": shuffles, "below": below})
    return out


def deck_vectors() -> list[dict[str, Any]]:
    out = []
    for name in ("koudian", "wuhan", "jj", "daqi"):
        rs = rulesets.get(name)
        for seed in (b"", bytes(range(32))):
            out.append({"ruleset": name, "seed": seed.hex(), "order": list(rs.deck_order(rs.options(), seed))})
    return out


def worked_example() -> dict[str, Any]:
    """docs/fairness.md's example: seats 0 and 2 commit 32 bytes aa and bb, seats 1 and 3 nothing."""
    seed, salt = bytes(range(16)), bytes(range(16, 32))
    nonces = [b"\xaa" * 32, fairness.server_nonce(seed, 1), b"\xbb" * 32, fairness.server_nonce(seed, 3)]
    deck_seed = fairness.deck_seed(seed, nonces)
    rs = rulesets.get("koudian")
    order = rs.deck_order(rs.options(), deck_seed)
    return {"seed": seed.hex(), "salt": salt.hex(), "server_commitment": fairness.server_commitment(seed, salt),
            "commitment_0": fairness.nonce_commitment(nonces[0]), "nonces": [n.hex() for n in nonces],
            "deck_seed": deck_seed.hex(), "order": list(order), "deck_commitment": commitment(order, salt)}


# Each hand: (ruleset, the seat whose stream it is, the seats that commit a nonce, and how it is
# played: fair_hand's arguments; by default the clock plays). The second daqi hand has a 反主:
# seat 0 overcalls and takes the bottom the first declarer buried.
HANDS: list[tuple[str, int, tuple[int, ...], dict[str, Any]]] = [
    ("koudian", 2, (0, 2), {}), ("jj", 1, (0, 1, 2, 3), {}), ("wuhan", 0, (0, 3), {}),
    ("daqi", 3, (0, 1, 2, 3, 4), {}),
    ("daqi", 0, (0, 1, 2, 3, 4), {"seed": bytes([8]) * 16, "bot": "random", "rng_seed": 8}),
    ("koudian", 1, (0, 1, 2, 3), {"bot": "greedy", "rng_seed": 3}),
]


def verdicts(seat: int, events: list[dict[str, Any]]) -> list[str]:
    """What the Python client says of `events` (JSON, as the stream carries them)."""
    checker = SeatChecker(seat, {fairness.nonce_commitment(nonce(seat)): nonce(seat)})
    found = []
    for e in events:
        ev = decode(e["type"], schema_version(e["type"]), copy.deepcopy(e["data"]))
        found += [str(c) for c in checker.feed(ev)]
    return found


def _first(events: list[dict[str, Any]], type_: str, **match: Any) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == type_
                and all(e["data"].get(k) == v if v is not ... else e["data"].get(k) is not None
                        for k, v in match.items()))


def tampers(ruleset: str, seat: int, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Changes of one field of one event each: (event index, path in its data, new value)."""
    reveal = _first(events, "table.DealRevealed")
    out = [{"what": "server seed", "event": reveal, "path": ["seed"], "value": "ab" * 16},
           {"what": "own nonce", "event": reveal, "path": ["nonces", seat], "value": "cd" * 32}]
    end = next(i for i, e in enumerate(events) if e["type"].endswith(".HandEnded"))
    field = "deck" if ruleset == "daqi" else "order"
    deck = events[end]["data"][field]
    j = next(j for j in range(1, len(deck)) if deck[j] != deck[0])
    out.append({"what": "deck revealed", "event": end, "path": [field, 0], "value": deck[j]})
    if ruleset != "daqi":
        start = next(i for i, e in enumerate(events) if e["type"].endswith(".HandStarted"))
        mine = events[start]["data"]["dealt"][seat]
        out.append({"what": "dealt tile", "event": start, "path": ["dealt", seat, 0],
                    "value": "9p" if mine[0] != "9p" else "1m"})
        drawn = _first(events, "mahjong.TileDrawn", seat=seat, tile=...)
        tile = events[drawn]["data"]["tile"]
        out.append({"what": "drawn tile", "event": drawn, "path": ["tile"], "value": "E" if tile != "E" else "S"})
    if ruleset == "wuhan":
        turned = _first(events, "wuhan.IndicatorTurned")
        old = events[turned]["data"]["indicator"]
        out.append({"what": "indicator", "event": turned, "path": ["indicator"], "value": "P" if old != "P" else "C"})
    if ruleset == "jj":
        start = next(i for i, e in enumerate(events) if e["type"] == "jj.HandStarted")
        if events[start]["data"]["turned"]:
            old = events[start]["data"]["turned"][0]
            out.append({"what": "jj indicator", "event": start, "path": ["turned", 0], "value": "P" if old != "P" else "C"})
    if ruleset == "daqi":
        dealt = _first(events, "daqi.CardDealt", seat=seat, face_up=False)
        old = events[dealt]["data"]["card"]
        out.append({"what": "dealt card", "event": dealt, "path": ["card"], "value": "BJ" if old != "BJ" else "SJ"})
        out.append({"what": "card to another seat", "event": dealt, "path": ["index"],
                    "value": (events[dealt]["data"]["index"] + 1) % 100})
        flip = _first(events, "daqi.CardDealt", face_up=True)
        moved = (events[flip]["data"]["index"] + 5) % 100
        out.append({"what": "face-up card moved", "event": flip, "path": ["index"], "value": moved,
                    "also": {"path": ["card"], "value": deck[moved]}})
    return out


def apply(events: list[dict[str, Any]], tamper: dict[str, Any]) -> list[dict[str, Any]]:
    changed = copy.deepcopy(events)
    for change in (tamper, tamper.get("also")):
        if change is None:
            continue
        box = changed[tamper["event"]]["data"]
        for key in change["path"][:-1]:
            box = box[key]
        box[change["path"][-1]] = change["value"]
    return changed


def hand_vectors() -> list[dict[str, Any]]:
    out = []
    for ruleset, seat, committing, play in HANDS:
        events = as_json(seen_by(ruleset, fair_hand(ruleset, committing, **play), seat))
        assert verdicts(seat, events) == ["hand 1: deal verified"], ruleset
        bad = []
        for t in tampers(ruleset, seat, events):
            found = verdicts(seat, apply(events, t))
            assert len(found) == 1 and "DEAL MISMATCH" in found[0], (ruleset, t, found)
            bad.append({**t, "verdicts": found})
        out.append({"ruleset": ruleset, "seat": seat, "nonce": nonce(seat).hex(), "events": events,
                    "verdicts": ["hand 1: deal verified"], "tampered": bad})
    return out


def vectors() -> dict[str, Any]:
    return {"mt": mt_vectors(), "decks": deck_vectors(), "example": worked_example(), "hands": hand_vectors()}


if __name__ == "__main__":
    print(json.dumps(vectors(), ensure_ascii=False, separators=(",", ":")))
