// The page's fair-deal check gives exactly what the Python code gives (web/test/fairness-vectors.json,
// made by tests/e2e/web/fairness_vectors.py): the same Mersenne Twister, decks, hashes and verdicts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MersenneTwister, keyOfBytes } from "../src/mt19937.ts";
import {
  DealChecker, commitment, deckOrder, deckSeed, nonceCommitment, serverCommitment, serverNonce,
  unhex, hex, verdict,
} from "../src/fairness.ts";

// FAIRNESS_VECTORS: another vectors file (pytest passes one made from the engine as it is now).
const file = process.env.FAIRNESS_VECTORS ?? new URL("../../test/fairness-vectors.json", import.meta.url);
const vectors = JSON.parse(readFileSync(file, "utf8"));

async function twister(seedHex) {
  const seed = unhex(seedHex);
  const sha512 = new Uint8Array(await crypto.subtle.digest("SHA-512", seed));
  return () => new MersenneTwister(keyOfBytes(seed, sha512));
}

test("the Mersenne Twister seeded with bytes draws what Python's random.Random draws", async () => {
  for (const v of vectors.mt) {
    const fresh = await twister(v.seed);
    const rng = fresh();
    const bits = Array.from({ length: 700 }, () => rng.getrandbits(32)).slice(-5);
    assert.deepEqual(bits, v.bits32_696_700, `seed ${v.seed}`);
    const below = fresh();
    const got = [1, 5, 144, 2 ** 31, 2 ** 32 - 1].flatMap((n) => [below.randbelow(n), below.randbelow(n), below.randbelow(n)]);
    assert.deepEqual(got, v.below, `seed ${v.seed}: _randbelow`);
  }
});

test("a shuffle permutes exactly as Python's random.shuffle", async () => {
  for (const v of vectors.mt) {
    const fresh = await twister(v.seed);
    for (const [n, want] of Object.entries(v.shuffles)) {
      const items = [...Array(Number(n)).keys()];
      fresh().shuffle(items);
      assert.deepEqual(items, want, `seed ${v.seed}, ${n} items`);
    }
  }
});

test("every ruleset's deck order is the one Python's deck_order gives", async () => {
  for (const v of vectors.decks) {
    assert.deepEqual(await deckOrder(v.ruleset, unhex(v.seed)), v.order, `${v.ruleset} seed ${v.seed}`);
  }
});

test("the worked example of docs/fairness.md comes out the same", async () => {
  const e = vectors.example;
  const seed = unhex(e.seed);
  const salt = unhex(e.salt);
  assert.equal(await serverCommitment(seed, salt), e.server_commitment);
  assert.equal(await nonceCommitment(unhex(e.nonces[0])), e.commitment_0);
  assert.equal(hex(await serverNonce(seed, 1)), e.nonces[1]);
  assert.equal(hex(await serverNonce(seed, 3)), e.nonces[3]);
  const ds = await deckSeed(seed, e.nonces.map(unhex));
  assert.equal(hex(ds), e.deck_seed);
  const order = await deckOrder("koudian", ds);
  assert.deepEqual(order, e.order);
  assert.equal(await commitment(order, salt), e.deck_commitment);
});

async function verdicts(hand, events) {
  const checker = new DealChecker(hand.seat, new Map([[await nonceCommitment(unhex(hand.nonce)), unhex(hand.nonce)]]));
  const found = [];
  for (const e of events) {
    const ended = checker.feed(e.type, e.data);
    if (ended) found.push(verdict(await checker.check(ended)));
  }
  return found;
}

function apply(events, t) {
  const changed = structuredClone(events);
  for (const c of [t, t.also]) {
    if (!c) continue;
    let box = changed[t.event].data;
    for (const k of c.path.slice(0, -1)) box = box[k];
    box[c.path.at(-1)] = c.value;
  }
  return changed;
}

test("a seat's whole hand verifies, and every tampered copy gives Python's verdict word for word", async () => {
  for (const hand of vectors.hands) {
    assert.deepEqual(await verdicts(hand, hand.events), hand.verdicts, hand.ruleset);
    for (const t of hand.tampered) {
      assert.deepEqual(await verdicts(hand, apply(hand.events, t)), t.verdicts, `${hand.ruleset}: ${t.what}`);
    }
  }
});

test("the seat reveals its own nonce once the deal is committed, and not before", async () => {
  const hand = vectors.hands[0];
  const nonce = unhex(hand.nonce);
  const checker = new DealChecker(hand.seat, new Map([[await nonceCommitment(nonce), nonce]]));
  let asked = null;
  for (const e of hand.events) {
    if (e.type === "table.NonceRevealed" && e.data.seat === hand.seat) break;
    if (e.type === "table.DealCommitted") assert.equal(checker.awaitingMyNonce(), null);
    checker.feed(e.type, e.data);
    asked = checker.awaitingMyNonce();
  }
  assert.deepEqual(asked, nonce);
});
