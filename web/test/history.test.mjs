// The table's history says what happened to a seat's auto-play (托管) as the players would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { eventWord } from "../src/history.ts";

test("auto-play switched on reads 托管, and the seat taken back reads 取消托管", () => {
  assert.equal(eventWord("table.AutoPlaySet", { seat: 0, on: true }), "托管");
  assert.equal(eventWord("table.AutoPlaySet", { seat: 0, on: false }), "取消托管");
});

test("a timeout is news, the streak set back to 0 by a move in time is not", () => {
  assert.equal(eventWord("table.SeatTimedOut", { seat: 2, streak: 1 }), "超时");
  assert.equal(eventWord("table.SeatTimedOut", { seat: 2, streak: 0 }), null);
});

test("bookkeeping events are not news", () => {
  assert.equal(eventWord("koudian.ClaimWindowOpened", { tile: "5m" }), null);
  assert.equal(eventWord("mahjong.TileDiscarded", { seat: 1, tile: "5m" }), "打");
});
