// What every ruleset's table shares: the other seats' panels around the table, in play order
// after the player's own seat, and the player's own panel below.
import { el } from "./pieces";

export interface Drawn {
  table: HTMLElement;
  own: HTMLElement;
}

/** One panel per other seat; `panel(s)` draws what seat `s` shows. */
export function otherSeats(seats: number, mine: number, turn: number | undefined,
  panel: (s: number) => (Node | null)[]): HTMLElement {
  const box = el("div", { class: "seats" });
  for (let k = 1; k <= seats; k++) {
    const s = (Math.max(mine, 0) + k) % seats;
    if (s === mine) continue;
    box.append(el("div", { class: `seat${turn === s ? " turn" : ""}`, "data-seat": String(s) }, ...panel(s)));
  }
  return box;
}
