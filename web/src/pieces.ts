// Tiles and cards as small boxes of text (no image assets): readable on a phone, and what a
// screen reader says is the notation of the rules README.

const NUMERALS = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
const SUITS: Record<string, string> = { m: "万", p: "筒", s: "条" };
const HONOURS: Record<string, string> = { E: "东", S: "南", W: "西", N: "北", C: "中", F: "发", P: "白" };

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** A mahjong tile ("5m", "E", "C"); "" is a face-down tile. */
export function tile(t: string): HTMLElement {
  if (!t) return el("span", { class: "tile back", title: "暗" });
  const honour = HONOURS[t];
  if (honour) return el("span", { class: `tile honour h${t}`, title: t, "data-tile": t }, honour);
  const n = Number(t[0]);
  const suit = t[1];
  return el("span", { class: `tile s${suit}`, title: t, "data-tile": t }, NUMERALS[n] ?? t, el("small", {}, SUITS[suit] ?? suit));
}

/** A tile's face value in 扣点 (numbers as printed, honours 10). */
export function faceValue(t: string): number {
  return HONOURS[t] ? 10 : Number(t[0]);
}

/** A card ("♠A", "♥10", "SJ", "BJ"); "" is a face-down card. */
export function card(c: string): HTMLElement {
  if (!c) return el("span", { class: "card back", title: "暗" });
  if (c === "SJ" || c === "BJ") {
    return el("span", { class: `card joker ${c === "BJ" ? "red" : ""}`, title: c, "data-card": c }, c === "BJ" ? "大王" : "小王");
  }
  const suit = c[0];
  const red = suit === "♥" || suit === "♦";
  return el("span", { class: `card ${red ? "red" : ""}`, title: c, "data-card": c }, el("small", {}, suit), c.slice(1));
}

export function row(items: string[], draw: (x: string) => HTMLElement, cls = "row"): HTMLElement {
  return el("div", { class: cls }, ...items.map(draw));
}

export const TRUMP_SUITS = ["♠", "♥", "♣", "♦"];

export function seatName(seat: number | undefined | null, mine: number): string {
  if (seat === undefined || seat === null || seat < 0) return "—";
  return seat === mine ? `座位${seat}(你)` : `座位${seat}`;
}
