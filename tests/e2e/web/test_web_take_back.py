"""Taking a seat back from auto-play (托管) on the web table, in headless Chromium through Envoy,
against real services: the page's seat sits idle until the server plays it, the page says so and
when the next deadline falls, 取消托管 gives the seat back, and its next decision waits for the
player's click (issue 11, "托管 that a player can leave")."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from datetime import datetime
from typing import Any

import pytest

from clients.client import Player, admin_replay, channel, play_seat
from services.game.clock import AUTO_PLAY_DELAY_MS
from tests.e2e.test_game import _shown
from tests.e2e.web.conftest import RESULTS, ROOT, Web
from tests.e2e.web.test_web_table import DESKTOP, admin_of, check_against_the_log, views_received

pytestmark = pytest.mark.e2e

SEATS = 4
TIMEOUT_MS = 2_500  # short, so that the idle seat goes on auto-play after two timeouts
OPTIONS = {"turn_timeout_ms": TIMEOUT_MS, "claim_timeout_ms": TIMEOUT_MS}
# The page clicks its next decision when its countdown shows this many seconds: the decision has
# then been open half a second or more (past the auto-play delay), with over a second to click.
CLICK_AT_LEFT = 2
PRESS_MS = 120  # how long a person's click holds the button down
WAIT_MS = 20_000  # for auto-play to come, and for the seat's next decision


async def said(driver: asyncio.subprocess.Process, timeout_s: float) -> dict[str, Any]:
    """The driver's next JSON line ({} when it ended without one)."""
    assert driver.stdout is not None
    return json.loads(await asyncio.wait_for(driver.stdout.readline(), timeout_s) or b"{}")


async def go_on(driver: asyncio.subprocess.Process) -> None:
    assert driver.stdin is not None
    driver.stdin.write(b"go\n")
    await driver.stdin.drain()


def command(step: Any) -> tuple[str, str]:
    """The command a step's event was the first of (its type, who sent it); ("", "") for the rest."""
    meta = json.loads(step.metadata_json)
    return (meta["command"]["type"], meta["actor"]) if "command" in meta else ("", "")


def seat_name(seat: int) -> str:
    """How the page names its own seat (web/src/pieces.ts)."""
    return f"座位{seat}(你)"


def at(step: Any) -> datetime:
    return datetime.fromisoformat(json.loads(step.metadata_json)["time"])


async def test_the_page_shows_auto_play_and_its_deadline_and_takes_the_seat_back(web: Web) -> None:
    args = {"url": web.url, "ruleset": "koudian", "options": OPTIONS, "viewport": DESKTOP,
            "waitMs": WAIT_MS, "pressMs": PRESS_MS, "clickAtLeft": CLICK_AT_LEFT,
            "shots": {k: str(RESULTS / f"take-back-{k}.png") for k in ("auto", "back", "played")},
            "received": str(RESULTS / "take-back.received.json")}
    driver = await asyncio.create_subprocess_exec(
        shutil.which("node") or "node", str(ROOT / "web" / "e2e" / "take_back.mjs"), json.dumps(args),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=ROOT / "web")
    try:
        sat = await said(driver, 60)
        assert "table_id" in sat, "the page did not create and join a table"
        table_id, seat = sat["table_id"], sat["seat"]
        async with channel(web.address) as chan:
            me = Player(chan, sat["token"], sat["player_id"])  # the page's own player
            others = [s for s in range(SEATS) if s != seat]
            bots = [await Player.guest(chan, f"bot{s}") for s in others]
            for s, bot in zip(others, bots, strict=True):
                await bot.join(table_id, s)
                await bot.ready(table_id)
            # Two hands: should the first end before the seat's next decision, the page plays on.
            playing = asyncio.gather(*(play_seat(b, table_id, "greedy", seed=s, hands=2)
                                       for s, b in zip(others, bots, strict=True)))
            try:
                # Two timeouts, and the page says that the server plays the seat, and until when.
                line = await said(driver, WAIT_MS / 1000 + 30)
                assert "auto" in line, f"the page never showed that the server plays its seat: {line}"
                auto = line["auto"]
                assert "托管中" in auto["auto"] and auto["takeBack"]
                assert auto["countdown"].startswith("限时") and auto["deadline_at"] > 0
                assert auto["due"].startswith("到时 ")
                assert seat in (await me.view(table_id)).auto_play
                await go_on(driver)

                # 取消托管: the page no longer says so, and the server's view agrees.
                line = await said(driver, 30)
                assert "back" in line, f"the page still shows auto-play after its 取消托管 was clicked: {line}"
                back = line["back"]
                assert not back["auto"] and not back["takeBack"]
                assert seat not in (await me.view(table_id)).auto_play
                await go_on(driver)

                done = await said(driver, WAIT_MS / 1000 + 30)
                assert done.get("done"), f"the page did not play the seat's next decision: {done}"
                assert await asyncio.wait_for(driver.wait(), 30) == 0
            finally:
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await playing
            steps = await admin_replay(admin_of(chan), table_id)
    finally:
        if driver.returncode is None:
            driver.kill()
            await driver.wait()

    # The log: the player's TakeBack turned auto-play off, and the seat's next decision was the
    # page's own click, with no timeout of the seat in between.
    (taken,) = [s for s in steps if command(s)[0] == "table.TakeBack"]
    assert command(taken)[1] == me.player_id
    assert taken.type == "table.AutoPlaySet" and json.loads(taken.data_json) == {"seat": seat, "on": False}
    later = [s for s in steps if s.version > taken.version]
    act = next(s for s in later if command(s) == ("table.Act", me.player_id))
    assert not [s for s in later if s.version < act.version and s.type in ("table.SeatTimedOut", "table.AutoPlaySet")
                and json.loads(s.data_json)["seat"] == seat], "the server played the seat after it was taken back"

    # The page's history says so too: 托管 when the server took the seat, 取消托管 when it was given back.
    numbered = {version: n for n, (version, _, _) in enumerate(_shown(steps, "koudian", seat), 1)}
    (put_on,) = [s for s in steps if s.version < taken.version and s.type == "table.AutoPlaySet"
                 and json.loads(s.data_json) == {"seat": seat, "on": True}]
    assert dict(auto["feed"]).get(numbered[put_on.version]) == f"{seat_name(seat)} 托管"
    assert dict(back["feed"]).get(numbered[taken.version]) == f"{seat_name(seat)} 取消托管"

    # That decision stayed open for the player far longer than the auto-play delay, and the page
    # counted down to the server's instant for it: a full timeout, not the auto-play delay.
    clicked, played = done["clicked"], done["played"]
    assert not clicked["auto"] and not played["auto"]  # nor did the page show it again
    assert clicked["countdown"].startswith("限时") and int(clicked["countdown"].split()[1]) <= CLICK_AT_LEFT
    opened = [version for version, _, _ in _shown(steps, "koudian", seat)][clicked["version"] - 1]
    opened_at = at(next(s for s in steps if s.version == opened))
    assert (at(act) - opened_at).total_seconds() * 1000 > AUTO_PLAY_DELAY_MS
    loads = json.loads((RESULTS / "take-back.received.json").read_text())
    views = views_received(loads)
    decision = [v for v in views if v.version == clicked["version"]]
    assert decision and all(v.legal_actions and seat not in v.auto_play for v in decision)
    assert {v.deadline_ms for v in decision} == {TIMEOUT_MS}
    assert clicked["deadline_at"] in {v.deadline_at_ms for v in decision}
    on_auto = [v for v in views if v.version == auto["version"]]
    assert on_auto and all(seat in v.auto_play for v in on_auto)
    assert auto["deadline_at"] in {v.deadline_at_ms for v in on_auto}  # the server's instant, shown

    # Everything the page received is its seat's redacted log, every view the engine's.
    check_against_the_log({"seat": seat, "loads": loads}, "koudian", steps)
