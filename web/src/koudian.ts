// 吕梁扣点麻将: the public table and the seat's own hand, from a KoudianView.
import type { KoudianView, Meld } from "../gen/qipai/v1/views_pb";
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

export function renderKoudian(v: KoudianView, mine: number, discardable?: Set<string>, discard?: (t: string) => void): Drawn {
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
    el("span", {}, `分数 ${v.scores.join(" / ")}`));
  const table = el("div", { class: "koudian" }, others, centre);
  const own = el("div", { class: `own${v.turn === mine ? " turn" : ""}` }, ...(mine < 0 ? [] : [
      el("div", { class: "who" }, seatName(mine, mine), v.dealer === mine ? el("em", {}, "庄") : null,
        v.ready[mine] ? el("em", { class: "ting" }, "报听") : null),
      el("div", { class: "melds" }, ...(v.melds[mine]?.melds ?? []).map(meld)),
      el("div", { class: "hand", id: "hand" }, ...v.hand.map(tap), v.drawn ? el("span", { class: "drawn" }, tap(v.drawn)) : null),
      v.waits.length ? el("div", { class: "waits" }, "听 ", ...v.waits.map(tile)) : null,
      v.faceDown ? el("div", { class: "waits" }, "扣下 ", tile(v.faceDown)) : null,
      row(v.rivers[mine]?.tiles ?? [], tile, "river")]));
  return { table, own };
}
