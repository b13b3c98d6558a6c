"""`qipai play`: sit at a table in the terminal against bots.

You take seat 0 of a new table; bots take the other seats in this process. Each turn shows your
hand, what is public, and your legal actions numbered: answer with a number, or type an action in
the scenario form (`discard 5m`, `pong 7p`, `play ♠A ♠A`, `bid ♥7`). A rejected action prints the
rule's reason; Ctrl-D or `quit` leaves.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import grpc
from grpc_status import rpc_status

from clients.client import Player, channel, engine_view, play_seat
from engine import rulesets
from engine.core.messages import message_to_json
from protocol import wire
from qipai.v1 import common_pb2

FIELDS_SHOWN = 8  # how many public fields of the view to print besides the hand


def render_action(cmd: Any) -> str:
    """A command as a player would say it: `discard 5m`, `play ♠A ♠A`."""
    data = message_to_json(cmd)
    name = wire._snake(data["type"].partition(".")[2]).replace("_", " ")
    args = [" ".join(v) if isinstance(v, list) else str(v)
            for k, v in data["data"].items() if k != "seat" and v is not None]
    return " ".join([name, *args])


def parse_typed(rs: Any, seat: int, text: str) -> Any:
    """A typed action (`discard 5m`) through the ruleset's human command form."""
    word, _, rest = text.strip().partition(" ")
    spec: dict[str, Any] = {"seat": seat, "action": word}
    if rest:
        key = "cards" if rs.name == "daqi" else "tile"
        spec[key] = rest.strip()
    return rs.parse_command(spec)


def show(reply: Any, rs: Any, view: Any) -> None:
    print(f"\n— table {reply.table_id} v{reply.version} — you are seat {reply.seat} — {reply.status}")
    hand = getattr(view, "hand", ())
    print("your hand:", " ".join(map(str, hand)) or "(none)")
    shown = 0
    for name in view.__dataclass_fields__:
        value = getattr(view, name)
        # A tile or card may equal 0 as a number (1m is tile 0): only a plain 0 is "nothing".
        empty = value is None or value in ((), "") or (type(value) is int and value == 0)
        if name in ("hand", "options", "seat") or empty or shown >= FIELDS_SHOWN:
            continue
        text = " ".join(map(str, value)) if isinstance(value, tuple) else str(value)
        print(f"  {name}: {text[:100]}")
        shown += 1


async def _play(address: str, ruleset: str, bot: str) -> int:
    rs = rulesets.get(ruleset)
    seats = rs.seats(rs.options({}))
    async with channel(address) as chan:
        me = await Player.guest(chan, "you")
        table_id = (await me.create_table(ruleset)).table_id
        bots = [await Player.guest(chan, f"bot{i}") for i in range(1, seats)]
        await me.join(table_id, 0)
        for i, b in enumerate(bots, start=1):
            await b.join(table_id, i)
        tasks = [asyncio.create_task(play_seat(b, table_id, bot, seed=i, hands=10**6)) for i, b in enumerate(bots)]
        for b in bots:
            await b.ready(table_id)
        await me.ready(table_id)
        loop = asyncio.get_running_loop()
        try:
            while True:
                reply = await me.view(table_id)
                if reply.status == "match_over":
                    print("the match is over")
                    return 0
                if reply.status == "waiting_for_hand":
                    await me.ready(table_id)
                    await asyncio.sleep(0.3)
                    continue
                if not reply.legal_actions:
                    await asyncio.sleep(0.3)
                    continue
                view = engine_view(rs, reply)
                legal = [wire.action_to_command(a, reply.seat) for a in reply.legal_actions]
                show(reply, rs, view)
                for n, cmd in enumerate(legal, start=1):
                    print(f"  [{n}] {render_action(cmd)}")
                text = await loop.run_in_executor(None, _ask)
                if text is None or text.strip() == "quit":
                    return 0
                try:
                    if text.strip().isdigit():
                        if not 1 <= int(text) <= len(legal):
                            raise ValueError(f"no such choice: pick 1 to {len(legal)}")
                        cmd = legal[int(text) - 1]
                    else:
                        cmd = parse_typed(rs, reply.seat, text)
                    await me.act(table_id, wire.command_to_action(cmd), expected_version=reply.version)
                except (ValueError, KeyError) as exc:
                    print(f"  ✗ {exc}")
                except grpc.aio.AioRpcError as err:
                    print(f"  ✗ {_reason(err)}")
        finally:
            for t in tasks:
                t.cancel()


def _ask() -> str | None:
    try:
        return input("your move> ")
    except EOFError:
        return None


def _reason(err: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(err)
    if status is not None and status.details:
        rule = common_pb2.RuleViolation()
        if status.details[0].Unpack(rule):
            return rule.message
    return err.details() or err.code().name


def main(args: Any) -> int:
    """`qipai play [--ruleset R] [--bot greedy|random]` against the server at QIPAI_GRPC_ADDR."""
    try:
        return asyncio.run(_play(args.grpc_addr, args.ruleset, args.bot))
    except KeyboardInterrupt:
        return 130
    except grpc.aio.AioRpcError as err:
        print(f"qipai play: {err.code().name}: {err.details()} (is `make run` serving "
              f"{args.grpc_addr}?)", file=sys.stderr)
        return 1
