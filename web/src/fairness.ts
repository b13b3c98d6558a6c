// The fair-deal check of docs/fairness.md, in the browser: everything a seat needs to recompute a
// hand's deck from the server seed, the salt and every seat's nonce, and to compare it with the
// commitments published before the deal and with the cards or tiles this seat was shown.
// No DOM and no network here (web/test runs it under Node against vectors from Python).
import { MersenneTwister, keyOfBytes } from "./mt19937";

const utf8 = new TextEncoder();

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function unhex(text: string): Uint8Array {
  if (text.length % 2 || /[^0-9a-f]/i.test(text)) throw new Error(`not hex: ${text.slice(0, 16)}`);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function digest(alg: "SHA-256" | "SHA-512", data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(alg, data as Uint8Array<ArrayBuffer>));
}

export const sha256 = (data: Uint8Array): Promise<Uint8Array> => digest("SHA-256", data);

export const NONCE_BYTES = 32;

/** A fresh nonce of this seat's (the browser's CSPRNG). */
export function newNonce(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
}

/** sha256(seed || salt), hex: what the server publishes before the deal. */
export async function serverCommitment(seed: Uint8Array, salt: Uint8Array): Promise<string> {
  return hex(await sha256(concat(seed, salt)));
}

/** sha256(nonce), hex: what a seat sends with Ready. */
export async function nonceCommitment(nonce: Uint8Array): Promise<string> {
  return hex(await sha256(nonce));
}

/** sha256("qipai-seat-nonce\0" || seed || seat as one byte): a seat without a revealed nonce. */
export async function serverNonce(seed: Uint8Array, seat: number): Promise<Uint8Array> {
  return sha256(concat(utf8.encode("qipai-seat-nonce\0"), seed, Uint8Array.of(seat)));
}

/** sha256("qipai-deal\0" || seed || nonce_0 || nonce_1 ...): the seed the ruleset shuffles with. */
export async function deckSeed(seed: Uint8Array, nonces: Uint8Array[]): Promise<Uint8Array> {
  return sha256(concat(utf8.encode("qipai-deal\0"), seed, ...nonces));
}

/** engine/core/shuffle.py's seeded_shuffle: random.Random(sha256("qipai-shuffle\0" || seed)).shuffle. */
export async function seededShuffle<T>(items: readonly T[], seed: Uint8Array): Promise<T[]> {
  const rngSeed = await sha256(concat(utf8.encode("qipai-shuffle\0"), seed));
  const rng = new MersenneTwister(keyOfBytes(rngSeed, await digest("SHA-512", rngSeed)));
  const order = [...items];
  rng.shuffle(order);
  return order;
}

/** sha256(" ".join(order) || salt), hex: a ruleset's deck commitment. */
export async function commitment(order: readonly string[], salt: Uint8Array): Promise<string> {
  return hex(await sha256(concat(utf8.encode(order.join(" ")), salt)));
}

// The canonical decks the rulesets shuffle, in their Python order (engine/mahjong/tiles.py
// FULL_SET, engine/jj/game.py DECK, engine/daqi/cards.py DECK).
const HONOURS = ["E", "S", "W", "N", "C", "F", "P"];
const TILES = [..."mps"].flatMap((suit) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${suit}`)).concat(HONOURS);
const MAHJONG = TILES.flatMap((t) => [t, t, t, t]);
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const CARDS = [..."♠♥♣♦"].flatMap((suit) => RANKS.flatMap((r) => [`${suit}${r}`, `${suit}${r}`])).concat(["SJ", "SJ", "BJ", "BJ"]);
export const DECKS: Record<string, readonly string[]> = {
  koudian: MAHJONG,
  wuhan: MAHJONG,
  jj: MAHJONG.concat(["f1", "f2", "f3", "f4"]),
  daqi: CARDS,
};

/** The ruleset's deck_order(options, seed): every ruleset shuffles its whole deck once. */
export async function deckOrder(ruleset: string, seed: Uint8Array): Promise<string[]> {
  const deck = DECKS[ruleset];
  if (!deck) throw new Error(`no deck known for ruleset ${ruleset}`);
  return seededShuffle(deck, seed);
}

// --- where each piece a seat sees comes from -----------------------------------------------

const MAHJONG_SEATS = 4;
const HAND_SIZE = 13;
const DAQI_SEATS = 5;
const DAQI_DEALT = 100;

/** engine/mahjong/wall.py deal_order: which seat takes each of the first dealt tiles. */
export function mahjongDealOrder(dealer: number, seats = MAHJONG_SEATS, handSize = HAND_SIZE): number[] {
  const seatOf: number[] = [];
  for (let round = 0; round < Math.floor(handSize / 4); round++) {
    for (let i = 0; i < seats; i++) seatOf.push(...Array<number>(4).fill((dealer + i) % seats));
  }
  const rest = handSize % 4;
  for (let i = 0; i < seats; i++) seatOf.push(...Array<number>(i === 0 ? rest + 1 : rest).fill((dealer + i) % seats));
  return seatOf;
}

/** engine/daqi/deal.py flip_index: the 翻牌's position, sha256(" ".join(deck)) mod 100. */
export async function daqiFlipIndex(deck: readonly string[]): Promise<number> {
  const d = await sha256(utf8.encode(deck.join(" ")));
  let v = 0n;
  for (const b of d.subarray(0, 8)) v = (v << 8n) | BigInt(b);
  return Number(v % BigInt(DAQI_DEALT));
}

/** Pieces this seat was shown at deck positions (negative: counted from the deck's end, -1 the
 * last); compared as a multiset with what the revealed order holds there. */
interface Seen {
  positions: number[];
  pieces: string[];
  what: string;
}

type Data = Record<string, unknown>;

interface Hand {
  hand: number;
  serverCommitment: string;
  commitments: string[];
  revealed: Map<number, string>;
  withheld: Set<number>;
  ruleset?: string;
  deckCommitment?: string;
  deck?: string[];
  salt?: string;
  dealer?: number;
  front: number;
  back: number;
  seen: Seen[];
  flipIndex?: number;
  bottomTaken?: boolean;
  problems: string[];
}

/** What a hand's check needs, collected from this seat's events up to the hand's DealRevealed. */
export interface Ended {
  hand: Hand;
  reveal: { hand: number; seed: string; salt: string; nonces: string[]; server_nonce_seats: number[] };
}

/** The verdict on one hand's deal: `problems` is empty when every check passed. */
export interface HandCheck {
  hand: number;
  problems: string[];
  serverNonceSeats: number[];
}

export function verdict(c: HandCheck): string {
  return c.problems.length ? `hand ${c.hand}: DEAL MISMATCH: ${c.problems.join("; ")}` : `hand ${c.hand}: deal verified`;
}

function multiset(xs: readonly string[]): string {
  return [...xs].sort().join(" ");
}

/** Follows one table's events as one seat received them (engine/deal_check.py's DealChecker,
 * plus the pieces this seat was dealt and drew). `feed` is synchronous, so events are taken in
 * order; `check` then does the hashing. */
export class DealChecker {
  private current: Hand | null = null;

  /** `ownNonces`: commitment hex -> nonce, the nonces this seat committed to. */
  constructor(
    public seat: number,
    public ownNonces: Map<string, Uint8Array> = new Map(),
  ) {}

  /** The nonce this seat must reveal now (its commitment is out, no reveal yet), else null. */
  awaitingMyNonce(): Uint8Array | null {
    const h = this.current;
    if (!h || h.deckCommitment !== undefined || this.seat < 0) return null;
    const mine = h.commitments[this.seat];
    if (!mine || h.revealed.has(this.seat) || h.withheld.has(this.seat)) return null;
    return this.ownNonces.get(mine) ?? null;
  }

  /** Take one event (its type and JSON data); returns the hand that just ended, if any. */
  feed(type: string, data: Data): Ended | null {
    const h = this.current;
    if (type === "table.DealCommitted") {
      this.current = {
        hand: data.hand as number, serverCommitment: data.server_commitment as string,
        commitments: data.commitments as string[], revealed: new Map(), withheld: new Set(),
        front: 0, back: 0, seen: [], problems: [],
      };
      return null;
    }
    if (!h) return null;
    const dot = type.indexOf(".");
    const family = type.slice(0, dot);
    const name = type.slice(dot + 1);
    if (type === "table.NonceRevealed") h.revealed.set(data.seat as number, data.nonce as string);
    else if (type === "table.NonceWithheld") h.withheld.add(data.seat as number);
    else if (type === "table.DealAbandoned") this.current = null;
    else if (type === "table.DealRevealed") {
      this.current = null;
      return { hand: h, reveal: data as unknown as Ended["reveal"] };
    } else if (family in DECKS && name === "HandStarted") this.started(h, family, data);
    else if (family in DECKS && name === "HandEnded") {
      h.deck = (family === "daqi" ? data.deck : data.order) as string[];
      h.salt = data.salt as string;
    } else this.shown(h, type, data);
    return null;
  }

  private started(h: Hand, ruleset: string, data: Data): void {
    h.ruleset = ruleset;
    h.deckCommitment = data.commitment as string;
    h.dealer = data.dealer as number;
    if (ruleset === "daqi") return; // its cards come one by one (CardDealt)
    const dealt = (data.dealt as string[][] | undefined)?.[this.seat];
    h.front = MAHJONG_SEATS * HAND_SIZE + 1;
    if (dealt?.length) {
      const positions = mahjongDealOrder(h.dealer).flatMap((s, i) => (s === this.seat ? [i] : []));
      h.seen.push({ positions, pieces: dealt, what: "the tiles you were dealt" });
    }
    // jj's indicator: tiles turned over at the tail, the last first.
    const turned = (data.turned as string[] | undefined) ?? [];
    turned.forEach((t, k) => h.seen.push({ positions: [-1 - k], pieces: [t], what: "the turned-over indicator" }));
    h.back = turned.length;
  }

  private shown(h: Hand, type: string, data: Data): void {
    if (type === "mahjong.TileDrawn") {
      const position = data.from_tail ? -1 - h.back++ : h.front++;
      if (data.seat === this.seat && typeof data.tile === "string") {
        h.seen.push({ positions: [position], pieces: [data.tile], what: "a tile you drew" });
      }
    } else if (type === "wuhan.IndicatorTurned") {
      h.seen.push({ positions: [h.front++], pieces: [data.indicator as string], what: "the indicator (翻牌)" });
    } else if (type === "daqi.CardDealt" && typeof data.card === "string") {
      const index = data.index as number;
      if (data.face_up) h.flipIndex = index;
      if (data.seat === this.seat || data.face_up) {
        h.seen.push({ positions: [index], pieces: [data.card], what: `card ${index} of the deal` });
      }
      if (data.seat === this.seat && h.dealer !== undefined && (h.dealer + index) % DAQI_SEATS !== this.seat) {
        h.problems.push(`card ${index} was dealt to you but belongs to seat ${(h.dealer + index) % DAQI_SEATS}`);
      }
    } else if (type === "daqi.BottomTaken") {
      // Only the first: after a 反主 the overcaller takes the cards the declarer buried.
      if (!h.bottomTaken && data.seat === this.seat && Array.isArray(data.cards)) {
        const positions = Array.from({ length: 8 }, (_, i) => DAQI_DEALT + i);
        h.seen.push({ positions, pieces: data.cards as string[], what: "the bottom cards you took" });
      }
      h.bottomTaken = true;
    }
  }

  /** The check of an ended hand: docs/fairness.md step 6, and the pieces this seat was shown. */
  async check(ended: Ended): Promise<HandCheck> {
    const { hand: h, reveal: end } = ended;
    const problems = [...h.problems];
    if (end.hand !== h.hand) problems.push(`the reveal is for hand ${end.hand}, the commitment for hand ${h.hand}`);
    const seed = unhex(end.seed);
    const salt = unhex(end.salt);
    if ((await serverCommitment(seed, salt)) !== h.serverCommitment) {
      problems.push("the server seed and salt do not match the server's commitment");
    }
    const seats = h.commitments.length;
    if (end.nonces.length !== seats) problems.push(`${end.nonces.length} nonces revealed for ${seats} seats`);
    const nonces = end.nonces.map(unhex);
    for (let seat = 0; seat < Math.min(seats, nonces.length); seat++) {
      const promised = h.commitments[seat];
      const nonce = end.nonces[seat];
      if (promised && !h.withheld.has(seat)) {
        if (!h.revealed.has(seat)) problems.push(`seat ${seat} committed a nonce that was neither revealed nor withheld`);
        else if (nonce !== h.revealed.get(seat) || (await nonceCommitment(nonces[seat])) !== promised) {
          problems.push(`seat ${seat}'s nonce is not the one it revealed`);
        }
        const mine = seat === this.seat ? this.ownNonces.get(promised) : undefined;
        if (mine && nonce !== hex(mine)) problems.push("your own nonce was not used");
      } else if (nonce !== hex(await serverNonce(seed, seat))) {
        problems.push(`seat ${seat}'s server nonce is not the one derived from the server seed`);
      }
    }
    const expected = [...Array(seats).keys()].filter((s) => !h.commitments[s] || h.withheld.has(s));
    if (expected.join(",") !== end.server_nonce_seats.join(",")) {
      problems.push("the seats marked as having server nonces are not those without a reveal");
    }
    if (!h.ruleset || !h.deck || h.deckCommitment === undefined) {
      problems.push("the hand's deck commitment or reveal is missing");
    } else {
      const order = await deckOrder(h.ruleset, await deckSeed(seed, nonces));
      if (order.join(" ") !== h.deck.join(" ")) problems.push("the deck dealt is not the one the seeds and nonces give");
      if (h.salt !== end.salt || (await commitment(order, salt)) !== h.deckCommitment) {
        problems.push("the deck does not match the commitment published at the hand's start");
      }
      problems.push(...(await this.shownProblems(h, h.deck)));
    }
    return { hand: h.hand, problems, serverNonceSeats: end.server_nonce_seats };
  }

  private async shownProblems(h: Hand, order: string[]): Promise<string[]> {
    const problems: string[] = [];
    for (const s of h.seen) {
      const want = s.positions.map((p) => order.at(p) ?? "?");
      if (multiset(want) !== multiset(s.pieces)) {
        problems.push(`${s.what}: you were shown ${s.pieces.join(" ")}, the deck order gives ${want.join(" ")}`);
      }
    }
    if (h.ruleset === "daqi" && h.flipIndex !== undefined && h.flipIndex !== (await daqiFlipIndex(order))) {
      problems.push(`the face-up card is card ${h.flipIndex}, not the one the deck order fixes`);
    }
    return problems;
  }
}
