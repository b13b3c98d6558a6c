// 吕梁打七: bids, trumps, the friend card, the trick and the seat's own cards, from a DaqiView.
import type { DaqiView, SeatCards } from "../gen/qipai/v1/views_pb";
import { type Drawn, otherSeats } from "./layout";
import { card, el, row, seatName, TRUMP_SUITS } from "./pieces";

const PHASES: Record<string, string> = {
  waiting: "等待", dealing: "发牌", final_bids: "叫主", burying: "埋底", overcalling: "反主", playing: "出牌",
};

function cardsOf(list: SeatCards[], seat: number): string[] {
  return list.filter((x) => x.seat === seat).flatMap((x) => x.cards);
}

/** Cards of the hand the player has picked (by position) for a free 出牌 or 埋底. */
export interface Picking {
  picked: Set<number>;
  toggle: (index: number) => void;
}

function handCards(hand: string[], picking?: Picking): HTMLElement {
  return el("div", { class: `hand${picking ? " picking" : ""}`, id: "hand" }, ...hand.map((c, i) => {
    const shown = card(c);
    if (picking) {
      shown.classList.toggle("picked", picking.picked.has(i));
      shown.setAttribute("data-index", String(i));
      shown.addEventListener("click", () => picking.toggle(i));
    }
    return shown;
  }));
}

export function renderDaqi(v: DaqiView, mine: number, picking?: Picking): Drawn {
  const others = otherSeats(v.handSizes.length, mine, v.turn, (s) => [
    el("div", { class: "who" }, seatName(s, mine), v.declarer === s ? el("em", {}, "庄") : null,
      v.friend === s ? el("em", {}, "朋友") : null, el("span", { class: "count" }, `${v.handSizes[s]}张 · 得${v.won[s] ?? 0}分`)),
    cardsOf(v.bids, s).length ? el("div", { class: "bids" }, el("i", {}, "叫"), ...cardsOf(v.bids, s).map(card)) : null,
    row(cardsOf(v.trick, s), card, "trick")]);
  const trump = v.trumps?.trumpSuit;
  const centre = el("div", { class: "centre" },
    el("span", {}, `阶段 ${PHASES[v.phase] ?? v.phase}`),
    el("span", {}, `主 ${trump === undefined ? (v.declarer === undefined ? "未定" : "无主") : TRUMP_SUITS[trump]}`),
    v.friendCard ? el("span", {}, "朋友牌 ", card(v.friendCard)) : null,
    v.flip?.cards.length ? el("span", {}, "翻牌 ", ...v.flip.cards.map(card)) : null,
    v.bestBid?.cards.length ? el("span", {}, `最大叫 ${seatName(v.bestBid.seat, mine)} `, ...v.bestBid.cards.map(card)) : null,
    el("span", {}, `已发 ${v.dealt} · 第${v.tricksDone + 1}墩`),
    el("span", {}, `轮到 ${seatName(v.turn, mine)}`),
    el("span", {}, `分数 ${v.scores.join(" / ")}`));
  const table = el("div", { class: "daqi" }, others, centre);
  const own = el("div", { class: `own${v.turn === mine ? " turn" : ""}` }, ...(mine < 0 ? [] : [
      el("div", { class: "who" }, seatName(mine, mine), v.declarer === mine ? el("em", {}, "庄") : null,
        v.friend === mine ? el("em", {}, "朋友") : null, el("span", { class: "count" }, `得${v.won[mine] ?? 0}分`)),
      row(cardsOf(v.trick, mine), card, "trick"),
      handCards(v.hand, picking),
      v.bottom.length ? el("div", { class: "bottom" }, "底牌 ", ...v.bottom.map(card)) : null]));
  return { table, own };
}
