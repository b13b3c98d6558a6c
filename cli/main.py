"""The `qipai` command: serve the services and run the operator tools."""

from __future__ import annotations

import argparse
import asyncio
import sys

from engine import rulesets
from services.config import SERVICES


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="qipai", description="qipai game backend and operator tools")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("serve", help="run gRPC services (configured by QIPAI_* variables)")
    s.add_argument("--service", choices=[*SERVICES, "all"], default="all",
                   help="which service this process runs (default: all three)")
    s.add_argument("--workers", type=int, default=1, metavar="N",
                   help="game only: N game processes sharing QIPAI_GRPC_ADDR, one per core "
                        "(default 1)")

    sc = sub.add_parser("scenario", help="run a scripted hand (fixed deal + actions) and print events")
    sc.add_argument("file", help="scenario JSON file (format: docs/scenarios/README.md)")
    sc.add_argument("--seat", type=int, help="print what this seat saw: its redacted events and view")

    sp = sub.add_parser("selfplay", help="bots play hands; checks conservation, zero-sum, replay")
    sp.add_argument("ruleset")
    sp.add_argument("--hands", type=int, default=100)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--bot", default="greedy", help="easy, normal, strong, greedy or random (default greedy)")
    sp.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="ruleset option override (repeatable), e.g. seven_pairs=true")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    rp = sub.add_parser("replay", help="a table's timeline from the server (operators)")
    rp.add_argument("table_id")
    rp.add_argument("--from", dest="first", type=int, default=1, help="first event version")
    rp.add_argument("--to", dest="last", type=int, default=0, help="last event version (0: the end)")
    rp.add_argument("--hand", type=int, default=0,
                    help="only this hand's events: from its deal until the next hand's (1 is the first)")
    rp.add_argument("--no-hands", action="store_true", help="do not show the hands after each action")

    vf = sub.add_parser("verify", help="re-run a table's commands and check its deck commitments")
    vf.add_argument("table_id")

    tk = sub.add_parser("token", help="print a bearer token signed with QIPAI_TOKEN_SECRET")
    tk.add_argument("--admin", action="store_true", help="an operator token (replay, verify)")
    tk.add_argument("--player", default="operator", help="the player id in the token")

    ch = sub.add_parser("check-hand", help="check a table's deals from your own Watch events "
                                           "(docs/fairness.md; no operator rights)")
    ch.add_argument("table_id")
    ch.add_argument("--hand", type=int, default=0, help="only this hand (default: every ended hand)")
    ch.add_argument("--token", default="", help="your player token (default: $QIPAI_TOKEN)")

    pl = sub.add_parser("play", help="play at a table in the terminal against bots")
    pl.add_argument("--ruleset", default="koudian",
                    help=f"the game: {' or '.join(rulesets.available())} (default koudian)")
    pl.add_argument("--bot", default="greedy", help="how the bots play: easy, normal, strong, greedy or random (default greedy)")
    pl.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="ruleset option of the table (repeatable), e.g. turn_timeout_ms=60000")
    pl.add_argument("--room", metavar="CODE", help="join the private room with this code "
                    "(6 digits, or qipai://room/<code>) and play at its table once it starts")
    pl.add_argument("--create-room", action="store_true",
                    help="create a private room (--ruleset, --option, --stake, --rounds) and print "
                    "its code for your friends")
    pl.add_argument("--stake", type=int, default=0, help="a new room's buy-in in chips (default 0: a free room, no chips move)")
    pl.add_argument("--rounds", type=int, default=0,
                    help="a new room's hands per match (default: the ruleset's)")
    pl.add_argument("--bots", type=int, default=0,
                    help="bots of this process that take free seats of the room (default 0: "
                    "friends take them)")
    pl.add_argument("--queue", action="store_true",
                    help="queue for a public table instead (bots fill it after the queue's wait)")
    pl.add_argument("--table", metavar="TABLE_ID",
                    help="take your seat back at this table (after a crash or a restart); the "
                    "seat's token is the one this machine kept, or --token")
    pl.add_argument("--token", default="",
                    help="play as the player of this token (default $QIPAI_TOKEN); without "
                    "--table, back at the unfinished table that player sits at, if any")
    pl.add_argument("--lang", choices=("zh", "en"), default="zh",
                    help="the language it speaks: zh (中文, tiles 一万 白 發, default) or en "
                    "(English, tiles in the notation 1m P F)")
    pl.add_argument("--preset", default="", help="with --queue: the options preset (default standard)")
    pl.add_argument("--tier", default="", help="with --queue: the stake tier (default the first)")

    dm = sub.add_parser("demo", help="bots play a few tables of each ruleset over gRPC")
    dm.add_argument("--tables", type=int, default=2, help="tables per ruleset")
    dm.add_argument("--exit", action="store_true", help="stop the server when the bots are done")

    from services.ledger.cli import add_commands as add_ledger_commands

    add_ledger_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `qipai` console script."""
    args = _parser().parse_args(argv)
    if args.command == "serve":
        from pydantic import ValidationError

        from services.config import settings
        from services.server import serve

        try:
            conf = settings()
        except ValidationError as exc:
            for err in exc.errors():
                print(f"qipai: configuration: {err['msg']}", file=sys.stderr)
            return 2
        services = list(SERVICES) if args.service == "all" else [args.service]
        if args.workers != 1:
            if args.service != "game" or args.workers < 1:
                print("qipai: --workers N (N >= 1) runs game nodes only: use --service game",
                      file=sys.stderr)
                return 2
            from services.workers import supervise

            return supervise(conf, args.workers)
        try:
            import uvloop  # a faster event loop for asyncio, gRPC, psycopg and Redis alike

            uvloop.install()
        except ImportError:
            pass
        try:
            return asyncio.run(serve(conf, services))
        except KeyboardInterrupt:
            return 130
    if args.command in ("replay", "verify", "token", "play", "check-hand"):
        from services.config import settings
        from services.signing_key import signing_key

        # The tools reach the server the settings name, with its token key.
        args.grpc_addr, args.token_secret = settings().grpc_addr, signing_key(settings().token_secret)
    if args.command == "scenario":
        from clients.scenario import main as scenario_main

        return scenario_main(args)
    if args.command == "selfplay":
        from clients.selfplay import main as selfplay_main

        return selfplay_main(args)
    if args.command in ("replay", "verify", "token"):
        from clients import operator

        return {"replay": operator.replay_main, "verify": operator.verify_main,
                "token": operator.token_main}[args.command](args)
    if args.command == "play":
        from clients.play import main as play_main

        return play_main(args)
    if args.command == "check-hand":
        from clients.deals import main as check_hand_main

        return check_hand_main(args)
    if args.command == "demo":
        from clients.demo import main as demo_main

        return demo_main(args)
    if args.command == "ledger":
        from services.ledger.cli import main as ledger_main

        return ledger_main(args)
    raise AssertionError(args.command)


if __name__ == "__main__":
    sys.exit(main())
