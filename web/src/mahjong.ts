// A mahjong table (吕梁扣点麻将, JJ 国标, and any later mahjong ruleset): the public table and the
// seat's own hand, from the fields every mahjong view shares.
import type { Meld, MeldRow, TileRow } from "../gen/qipai/v1/views_pb";
import { type Drawn, otherSeats } from "./layout";
import { el, row, seatName, tile } from "./pieces";

const PHASES: Record<string, string> = {
  between_hands: "局间", turn: "出牌", claims: "等待碰杠胡", robbing: "抢杠", match_over: "比赛结束",
};

function meld(m: Meld): HTMLElement {
  const t = m.tile ?? "";
  const count = m.kind === "pong" ? 3 : 4;
  // A concealed kong shows its two middle tiles face down (all four when the tile is hidden).
  const faces = Array.from({ length: count }, (_, i) => (m.kind === "concealed_kong" && (i === 0 || i === 3 || !t) ? "" : t));
  const word = m.kind === "pong" ? "碰" : "杠";
  return el("span", { class: "meld", title: m.kind }, el("i", {}, word), ...faces.map(tile));
}

/** A hand tile the player may discard by tapping it (the same move as its 打 button). */
function handTile(t: string, discard?: (t: string) => void): HTMLElement {
  const shown = tile(t);
  if (discard) {
    shown.classList.add("tap");
    shown.addEventListener("click", () => discard(t));
  }
  return shown;
}

/** What every mahjong view has (KoudianView, JJView); the rest is optional. */
export interface MahjongView {
  phase: string;
  scores: number[];
  dealer?: number;
  hand: string[];
  drawn?: string;
  turn?: number;
  claimTile?: string;
  handSizes: number[];
  melds: MeldRow[];
  rivers: TileRow[];
  ready: boolean[];
  wallLive: number;
  waits?: string[];
  faceDown?: string;
  wild?: string; // JJ: this hand's 混
  flowers?: TileRow[]; // JJ: flowers laid out (补花)
}

export function renderMahjong(v: MahjongView, mine: number, discardable?: Set<string>, discard?: (t: string) => void): Drawn {
  const tap = (t: string) => handTile(t, discardable?.has(t) ? discard : undefined);
  const others = otherSeats(v.handSizes.length, mine, v.turn, (s) => [
    el("div", { class: "who" }, seatName(s, mine), v.dealer === s ? el("em", {}, "庄") : null,
      v.ready[s] ? el("em", { class: "ting" }, "报听") : null, el("span", { class: "count" }, `${v.handSizes[s]}张`)),
    el("div", { class: "melds" }, ...(v.melds[s]?.melds ?? []).map(meld)),
    row(v.rivers[s]?.tiles ?? [], tile, "river")]);
  const centre = el("div", { class: "centre" },
    el("span", {}, `阶段 ${PHASES[v.phase] ?? v.phase}`),
    el("span", {}, `牌墙 ${v.wallLive}`),
    el("span", {}, `轮到 ${seatName(v.turn, mine)}`),
    v.claimTile ? el("span", {}, "待应 ", tile(v.claimTile)) : null,
    v.wild ? el("span", {}, "混 ", tile(v.wild)) : null,
    el("span", {}, `分数 ${v.scores.join(" / ")}`));
  const table = el("div", { class: "koudian" }, others, centre);
  const own = el("div", { class: `own${v.turn === mine ? " turn" : ""}` }, ...(mine < 0 ? [] : [
      el("div", { class: "who" }, seatName(mine, mine), v.dealer === mine ? el("em", {}, "庄") : null,
        v.ready[mine] ? el("em", { class: "ting" }, "报听") : null),
      el("div", { class: "melds" }, ...(v.melds[mine]?.melds ?? []).map(meld), ...(v.flowers?.[mine]?.tiles ?? []).map(tile)),
      el("div", { class: "hand", id: "hand" }, ...v.hand.map(tap), v.drawn ? el("span", { class: "drawn" }, tap(v.drawn)) : null),
      v.waits?.length ? el("div", { class: "waits" }, "听 ", ...v.waits.map(tile)) : null,
      v.faceDown ? el("div", { class: "waits" }, "扣下 ", tile(v.faceDown)) : null,
      row(v.rivers[mine]?.tiles ?? [], tile, "river")]));
  return { table, own };
}
