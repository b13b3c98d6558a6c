"""The reference web table in headless Chromium, through Envoy's gRPC-Web, against real services:
a seat played by clicking the page's buttons while bots fill the other seats over gRPC."""

from __future__ import annotations

import asyncio
import json
import shutil
import urllib.request
from typing import Any

import pytest
from google.protobuf import json_format

from clients.client import Player, admin_replay, channel, engine_view, play_seat
from engine import rulesets
from engine.core.messages import decode, schema_version
from engine.driver import fold
from qipai.v1 import admin_pb2, game_pb2
from services import auth
from tests.e2e.test_game import _redacted_log, _shown
from tests.e2e.test_nodes import holders
from tests.e2e.web.conftest import RESULTS, ROOT, Web

pytestmark = pytest.mark.e2e

SECRET = "e2e-secret"
SEATS = {"koudian": 4, "daqi": 5, "jj": 4}
# Deadlines far away: every decision of the browser's seat is its own click, never a timeout.
OPTIONS = {"koudian": {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000},
           "daqi": {"deal_interval_ms": 0, "bid_window_ms": 20_000, "play_timeout_ms": 60_000,
                    "bury_timeout_ms": 60_000},
           "jj": {"turn_timeout_ms": 60_000, "claim_timeout_ms": 60_000}}
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


async def play_from_page(web: Web, ruleset: str, viewport: dict[str, int], name: str,
                         reload_after: int = 0, pause_after: int = 0, during: Any = None,
                         recheck: Any = None) -> dict[str, Any]:
    """The page creates a table and sits; bots take the other seats; the page's seat clicks until
    the hand ends (after `pause_after` clicks it waits for `during(table_id)`; with `recheck`, once
    the page showed its deal check, it waits for `recheck(table_id)`, then the page reads the table
    again from the start and checks it again). Returns the driver's last
    word plus the table id and what the page received. Screenshots go to web/test-results/."""
    received = RESULTS / f"{name}.received.json"
    args = {"url": web.url, "ruleset": ruleset, "options": OPTIONS[ruleset], "viewport": viewport,
            "seed": 7, "reloadAfter": reload_after, "pauseAfter": pause_after, "shotAfter": 6,
            "shots": {"hand": str(RESULTS / f"{name}.png"), "end": str(RESULTS / f"{name}-end.png")},
            "received": str(received), "recheck": recheck is not None}
    driver = await asyncio.create_subprocess_exec(
        shutil.which("node") or "node", str(ROOT / "web" / "e2e" / "play.mjs"), json.dumps(args),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=ROOT / "web")
    assert driver.stdout is not None and driver.stdin is not None
    try:
        first = json.loads(await asyncio.wait_for(driver.stdout.readline(), 60) or b"{}")
        assert "table_id" in first, "the page did not create and join a table"
        table_id, seat = first["table_id"], first["seat"]
        async with channel(web.address) as chan:
            bots = [await Player.guest(chan, f"bot{i}") for i in range(1, SEATS[ruleset])]
            others = [s for s in range(SEATS[ruleset]) if s != seat]
            for s, bot in zip(others, bots, strict=True):
                await bot.join(table_id, s)
                await bot.ready(table_id)
            playing = asyncio.gather(*(play_seat(b, table_id, "greedy", seed=s)
                                       for s, b in zip(others, bots, strict=True)))
            while True:
                last = json.loads(await asyncio.wait_for(driver.stdout.readline(), 300) or b"{}")
                if "paused" not in last:
                    break
                await (recheck if last["paused"] == "end" else during)(table_id)
                driver.stdin.write(b"go\n")
                await driver.stdin.drain()
            await asyncio.wait_for(playing, 60)
        assert last.get("done"), "the page's seat did not play to the hand's end"
        assert await asyncio.wait_for(driver.wait(), 30) == 0
    finally:
        if driver.returncode is None:
            driver.kill()
            await driver.wait()
    return {**last, "table_id": table_id, "seat": seat, "loads": json.loads(received.read_text())}


def admin_of(chan: Any) -> Player:
    return Player(chan, auth.issue(SECRET, "operator", auth.ADMIN)[0], "operator")


async def server_record(address: str, table_id: str) -> tuple[list[admin_pb2.ReplayStep], admin_pb2.VerifyResponse]:
    """The table's whole log (Replay) and what Verify says of it, asked of the nodes at `address`."""
    async with channel(address) as chan:
        admin = admin_of(chan)
        steps = await admin_replay(admin, table_id)
        verified = await admin.admin.Verify(admin_pb2.VerifyRequest(table_id=table_id), metadata=admin.metadata)
    return steps, verified


def hand_end(steps: list[admin_pb2.ReplayStep]) -> tuple[str, dict[str, Any]]:
    ended = next(s for s in steps if s.type.endswith(".HandEnded"))
    return ended.type, json.loads(ended.data_json)


def events_received(loads: list[list[dict]]) -> list[tuple[int, str, dict]]:
    """Every event of every Watch update the page received, over all its page loads, in order."""
    return [(int(e["version"]), e["type"], json.loads(e["dataJson"]))
            for load in loads for m in load if m["method"] == "Watch"
            for e in m["message"].get("events", [])]


def views_received(loads: list[list[dict]]) -> list[game_pb2.ViewResponse]:
    """Every view the page received: GetView replies and views carried by Watch updates."""
    out = []
    for load in loads:
        for m in load:
            if m["method"] == "GetView":
                out.append(json_format.ParseDict(m["message"], game_pb2.ViewResponse()))
            elif m["method"] == "Watch" and "view" in m["message"]:
                out.append(json_format.ParseDict(m["message"]["view"], game_pb2.ViewResponse()))
    return out


def check_against_the_log(played: dict[str, Any], ruleset: str, steps: list[admin_pb2.ReplayStep]) -> None:
    """The page got exactly its seat's redacted events, no gap and no repeat over its reloads,
    and each view it got is the engine's view of the table for that seat at that version."""
    seat = played["seat"]
    got = events_received(played["loads"])
    last = got[-1][0]
    assert got == [x for x in _redacted_log(steps, ruleset, seat) if x[0] <= last]
    rs = rulesets.get(ruleset)
    history = [(s.version, decode(s.type, schema_version(s.type), json.loads(s.data_json)))
               for s in steps if not s.type.startswith("table.")]
    # A view's version is the seat's own, the number of events it may see: its view is the
    # table's at any version up to the next event the seat sees (hidden moves change nothing).
    seen = [version for version, _, _ in _shown(steps, ruleset, seat)]
    views = views_received(played["loads"])
    assert views and all(v.seat == seat for v in views)
    for v in views:
        upto = seen[v.version] - 1 if v.version < len(seen) else steps[-1].version
        state = fold(rs, [ev for version, ev in history if version <= upto])
        assert engine_view(rs, v) == rs.view(state, seat), f"view at version {v.version}"


# What a HandEnded reveals so that players can check the deal; the summary shows everything else.
REVEALS = {"order", "salt", "seed", "hands", "concealed_kongs", "face_down", "deck"}


def check_summary(played: dict[str, Any], steps: list[admin_pb2.ReplayStep]) -> None:
    """The page's hand-end summary shows every fact of the server's HandEnded, as recorded, and
    its table of payments reads the same."""
    kind, data = hand_end(steps)
    shown = dict(played["summary"])
    assert shown.pop("type") == kind
    assert shown == {k: v for k, v in data.items() if k not in REVEALS}
    assert played["deltas"] == data["deltas"]  # as the players read them in the table


def fits(played: dict[str, Any], viewport: dict[str, int]) -> None:
    assert 0 < played["wide"] <= viewport["width"], "the page scrolls sideways"


def the_page_made_every_decision(steps: list[admin_pb2.ReplayStep], seat: int) -> None:
    ended = next(s.version for s in steps if s.type.endswith(".HandEnded"))
    timeouts = [s for s in steps if s.version <= ended and s.type == "table.SeatTimedOut"
                and json.loads(s.data_json).get("seat") == seat]
    assert not timeouts, "the server played the page's seat"


async def test_a_koudian_hand_played_from_the_page_ends_with_the_servers_settlement_and_verifies(web):
    # Mid-hand Envoy restarts: the page's stream drops and resumes from its last version.
    played = await play_from_page(web, "koudian", DESKTOP, "koudian-desktop", pause_after=2,
                                  during=lambda _: asyncio.to_thread(web.restart_envoy))
    steps, verified = await server_record(web.address, played["table_id"])
    assert verified.ok, list(verified.problems)
    check_summary(played, steps)
    the_page_made_every_decision(steps, played["seat"])
    assert played["clicks"] >= 2 and played["streams"] >= 2
    assert played["picks"] >= 1  # some discards were made by tapping the tile in the hand
    fits(played, DESKTOP)
    check_against_the_log(played, "koudian", steps)


async def test_a_daqi_hand_played_on_a_phone_survives_a_reload_with_no_missing_or_repeated_event(web):
    played = await play_from_page(web, "daqi", PHONE, "daqi-phone", reload_after=4)
    assert played["reloaded"] and len(played["loads"]) == 2
    assert played["picks"] >= 1  # some plays were made by picking the cards in the hand
    fits(played, PHONE)
    steps, verified = await server_record(web.address, played["table_id"])
    assert verified.ok, list(verified.problems)
    check_summary(played, steps)
    the_page_made_every_decision(steps, played["seat"])
    check_against_the_log(played, "daqi", steps)
    # After the reload the stream resumed where the first page load stopped, not from the start.
    before, after = (events_received([load]) for load in played["loads"])
    assert before and after and after[0][0] > before[-1][0]


@pytest.mark.parametrize(("ruleset", "viewport"), [("koudian", PHONE), ("daqi", DESKTOP), ("jj", PHONE)],
                         ids=["koudian-phone", "daqi-desktop", "jj-phone"])
async def test_make_web_serves_each_ruleset_playable_on_the_other_screen_size_too(made_web, ruleset, viewport):
    # web/serve.py as `make web` runs it: its own qipai on the embedded default (SQLite, memory).
    size = "phone" if viewport is PHONE else "desktop"
    web = made_web
    played = await play_from_page(web, ruleset, viewport, f"{ruleset}-{size}")
    steps, verified = await server_record(web.address, played["table_id"])
    assert verified.ok, list(verified.problems)
    check_summary(played, steps)
    the_page_made_every_decision(steps, played["seat"])
    check_against_the_log(played, ruleset, steps)
    fits(played, viewport)


async def test_a_seat_plays_on_from_the_page_when_the_game_node_serving_its_table_dies(two_node_web, production_env):
    web, nodes = two_node_web
    killed: list[str] = []

    async def kill_the_tables_node(table_id: str) -> None:
        for _ in range(50):  # a lease may be between holders for a moment
            held = await holders(production_env, [(table_id, None)])
            if held:
                break
            await asyncio.sleep(0.1)
        (holder,) = held
        nodes[holder].process.kill()
        killed.append(holder)

    played = await play_from_page(web, "koudian", DESKTOP, "koudian-node-death", pause_after=2,
                                  during=kill_the_tables_node)
    assert killed
    alive = next(n for name, n in nodes.items() if name not in killed)
    steps, verified = await server_record(alive.address, played["table_id"])
    assert verified.ok, list(verified.problems)
    check_summary(played, steps)
    the_page_made_every_decision(steps, played["seat"])
    check_against_the_log(played, "koudian", steps)


def test_envoy_serves_the_page_and_answers_a_cross_origin_preflight(web):
    with urllib.request.urlopen(web.url, timeout=5) as page:
        assert page.status == 200 and b'src="app.js"' in page.read()
    preflight = urllib.request.Request(
        web.url + "qipai.v1.Game/Watch", method="OPTIONS",
        headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization,content-type,x-grpc-web"})
    with urllib.request.urlopen(preflight, timeout=5) as reply:
        assert reply.headers["access-control-allow-origin"] == "http://localhost:3000"
        assert "authorization" in reply.headers["access-control-allow-headers"]
        assert "grpc-status" in reply.headers["access-control-expose-headers"]

