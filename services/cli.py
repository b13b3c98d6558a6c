"""The `qipai` command: serve the services and run the operator tools."""

from __future__ import annotations

import argparse
import asyncio
import sys

from services.config import SERVICES


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="qipai", description="qipai game backend and operator tools")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("serve", help="run gRPC services (configured by QIPAI_* variables)")
    s.add_argument("--service", choices=[*SERVICES, "all"], default="all",
                   help="which service this process runs (default: all three)")

    sc = sub.add_parser("scenario", help="run a scripted hand (fixed deal + actions) and print events")
    sc.add_argument("file", help="scenario JSON file (format: README, 'Scenario files')")

    sp = sub.add_parser("selfplay", help="bots play hands; checks conservation, zero-sum, replay")
    sp.add_argument("ruleset")
    sp.add_argument("--hands", type=int, default=100)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--bot", default="greedy", help="random or greedy (default greedy)")
    sp.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="ruleset option override (repeatable), e.g. seven_pairs=true")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
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
        try:
            return asyncio.run(serve(conf, services))
        except KeyboardInterrupt:
            return 130
    if args.command == "scenario":
        from clients.scenario import main as scenario_main

        return scenario_main(args)
    if args.command == "selfplay":
        from clients.selfplay import main as selfplay_main

        return selfplay_main(args)
    raise AssertionError(args.command)


if __name__ == "__main__":
    sys.exit(main())
