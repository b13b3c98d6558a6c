"""Operator tools over gRPC: `qipai replay` (a readable timeline) and `qipai verify`.

Both use an admin token signed with QIPAI_TOKEN_SECRET, so they run where the operator holds the
server's secret; `qipai token --admin` prints such a token for other tools (grpcurl).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import grpc

from clients.client import Player, channel
from engine import table as tables
from engine.core.contract import Status
from engine.core.messages import decode, schema_version
from protocol import tokens as auth
from qipai.v1 import admin_pb2


def admin_player(chan: grpc.aio.Channel, secret: str) -> Player:
    token, _ = auth.issue(secret, "operator", auth.ADMIN, "operator")
    return Player(chan, token, "operator")


def describe(ev: Any, data: dict[str, Any]) -> str:
    """One event in words: its fields, tiles and cards in notation, secrets left out."""
    shown = {k: v for k, v in data.items() if k not in ("seed", "salt", "order", "deck") and v not in (None, [], ())}
    parts = []
    for key, value in shown.items():
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = " ".join(value)
        parts.append(f"{key}={value}")
    return " ".join(parts)


def fan_lines(ev: Any) -> list[str]:
    """A scored win's fans (名称, 番数) and the fans its exclusions removed, so a disputed score
    shows exactly why (rulesets whose win events carry `scored`, such as jj)."""
    scored = getattr(ev, "scored", None)
    if scored is None or not hasattr(scored, "fans"):
        return []
    lines = [f"        {f.name} {f.total}番" + (f" ({f.value}×{f.times})" if f.times > 1 else "") for f in scored.fans]
    lines.append(f"        = {scored.total}番" + (f"; 不计 {' '.join(scored.excluded)}" if scored.excluded else ""))
    return lines


def timeline(records: list[admin_pb2.ReplayStep], show_hands: bool = True) -> list[str]:
    """The replay as lines a person reads: who did what, the hands after each action, settlements."""
    lines: list[str] = []
    state = tables.Table()
    for i, step in enumerate(records):
        data = json.loads(step.data_json)
        ev = decode(step.type, schema_version(step.type), data)
        state = tables.evolve(state, ev)
        meta = json.loads(step.metadata_json)
        actor = meta.get("actor", "") if "command" in meta else ""
        lines.append(f"#{step.version:>4}  {step.type:<28} {actor:<18} {describe(ev, data)}")
        lines.extend(fan_lines(ev))
        if not (show_hands and state.exists):
            continue
        rs = state.rules
        # The hand's end may be followed by more events of its command (the deal's reveal).
        result = rs.hand_result(state.game)
        if result is not None and rs.status(state.game) is not Status.IN_HAND and step.type.endswith("HandEnded"):
            lines.append(f"        settlement: {result.outcome}, {result.points} points, "
                         f"scores {' '.join(f'{d:+d}' for d in result.deltas)}")
            lines.extend(f"          {line}" for line in result.explanation)
        last_of_command = i + 1 == len(records) or "command" in json.loads(records[i + 1].metadata_json)
        if last_of_command and rs.status(state.game) is Status.IN_HAND:
            for seat in range(len(state.seats)):
                hand = getattr(rs.view(state.game, seat), "hand", ())
                lines.append(f"        seat {seat} ({state.seats[seat] or '-'}): {' '.join(map(str, hand))}")
    return lines


async def _replay(args: Any) -> int:
    table_id, first, last, show_hands = args.table_id, args.first, args.last, not args.no_hands
    async with channel(args.grpc_addr) as chan:
        admin = admin_player(chan, args.token_secret)
        steps = [s async for s in admin.admin.Replay(admin_pb2.ReplayRequest(table_id=table_id),
                                                      metadata=admin.metadata)]
    if steps and first > steps[-1].version:
        print(f"qipai replay: {table_id} has {steps[-1].version} events; --from {first} is past its end",
              file=sys.stderr)
        return 1
    if args.hand:
        span = hand_span(steps, args.hand)
        if span is None:
            played = hands_played(steps)
            print(f"qipai replay: {table_id} has no hand {args.hand} "
                  f"({f'hands 1 to {played}' if played else 'no hand yet'})", file=sys.stderr)
            return 1
        first, last = span
    lines = timeline(steps, show_hands)
    last = last or 10**12
    print("\n".join(text for owner, text in zip(_owners(lines), lines, strict=True) if first <= owner <= last))
    return 0


def _hands(steps: list[admin_pb2.ReplayStep]) -> list[int]:
    """The hand each event belongs to (0: before the first). A hand begins where its deal does
    (the fair deal's commitment, else the ruleset's hand start) and runs until the next one
    begins: its play, its settlement, the chips it moved, the readies that followed."""
    state, current, owners = tables.Table(), 0, []
    for step in steps:
        ev = decode(step.type, schema_version(step.type), json.loads(step.data_json))
        state = tables.evolve(state, ev)
        if isinstance(ev, tables.DealCommitted):
            current = ev.hand
        elif state.hands_started > current:  # a hand dealt without a fair deal's commitment
            current = state.hands_started
        owners.append(current)
    return owners


def hands_played(steps: list[admin_pb2.ReplayStep]) -> int:
    """How many hands the table has begun."""
    return max(_hands(steps), default=0)


def hand_span(steps: list[admin_pb2.ReplayStep], hand: int) -> tuple[int, int] | None:
    """The first and last event versions of hand `hand`, or None if it never began."""
    versions = [step.version for step, owner in zip(steps, _hands(steps), strict=True) if owner == hand]
    return (versions[0], versions[-1]) if versions else None


def _owners(lines: list[str]) -> list[int]:
    """The event version each timeline line belongs to (hand lines follow their event)."""
    owners, current = [], 0
    for line in lines:
        if line.startswith("#"):
            current = int(line[1:6])
        owners.append(current)
    return owners


async def _verify(args: Any) -> int:
    table_id = args.table_id
    async with channel(args.grpc_addr) as chan:
        admin = admin_player(chan, args.token_secret)
        result = await admin.admin.Verify(admin_pb2.VerifyRequest(table_id=table_id), metadata=admin.metadata)
    if result.ok:
        print(f"{table_id}: OK — {result.commands_checked} commands re-run, {result.events_checked} "
              f"events identical, {result.decks_checked} revealed deck(s) match their commitments, "
              f"{result.deals_checked} fair deal(s) recomputed from seed and nonces")
        return 0
    print(f"{table_id}: MISMATCH")
    for problem in result.problems:
        print(f"  {problem}")
    return 1


def _run(coro: Any, address: str) -> int:
    try:
        return asyncio.run(coro)
    except grpc.aio.AioRpcError as err:
        print(f"qipai: {err.code().name}: {err.details()} (server {address})", file=sys.stderr)
        return 1


def replay_main(args: Any) -> int:
    """`qipai replay TABLE_ID [--hand N | --from N --to N] [--no-hands]`."""
    hand = getattr(args, "hand", 0)
    problem = window_problem(args.first, args.last)
    if hand < 0:
        problem = f"--hand {hand}: hands are numbered from 1"
    elif hand and (args.first != 1 or args.last):
        problem = "--hand N shows that hand's events: give it or --from/--to, not both"
    if problem:
        print(f"qipai replay: {problem}", file=sys.stderr)
        return 2
    return _run(_replay(args), args.grpc_addr)


def window_problem(first: int, last: int) -> str | None:
    """What is wrong with a `--from first --to last` window (`last` 0: to the end), if anything."""
    if first < 1:
        return f"--from {first}: event versions start at 1"
    if last < 0:
        return f"--to {last}: event versions start at 1 (0 or no --to: to the end)"
    if last and first > last:
        return f"--from {first} is after --to {last}: nothing to show"
    return None


def verify_main(args: Any) -> int:
    """`qipai verify TABLE_ID`: exit 0 when every event and deck checks out."""
    return _run(_verify(args), args.grpc_addr)


def token_main(args: Any) -> int:
    """`qipai token [--admin] [--player ID]`: a token signed with this server's secret."""
    role = auth.ADMIN if args.admin else auth.PLAYER
    token, _ = auth.issue(args.token_secret, args.player, role, args.player)
    print(token)
    return 0
