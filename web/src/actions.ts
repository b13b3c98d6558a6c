// A legal action as the button a player presses: the Chinese word players use and its pieces.
import type { Action } from "../gen/qipai/v1/actions_pb";
import { card, el, tile } from "./pieces";

export interface Shown {
  kind: string; // the action's oneof case: discard, pong, bid, play_cards...
  label: string;
  pieces: HTMLElement[];
}

export function describe(a: Action): Shown {
  const f = a.family;
  if (f.case === "mahjong") {
    const k = f.value.kind;
    switch (k.case) {
      case "discard":
        return { kind: "discard", label: "打", pieces: [tile(k.value.tile)] };
      case "declareReady":
        return { kind: "declare_ready", label: "报听 打", pieces: [tile(k.value.tile)] };
      case "pong":
        return { kind: "pong", label: "碰", pieces: [tile(k.value.tile)] };
      case "chow":
        return { kind: "chow", label: "吃", pieces: [tile(k.value.low)] };
      case "kong":
        return { kind: "kong", label: "杠", pieces: [tile(k.value.tile)] };
      case "win":
        return { kind: "win", label: "胡", pieces: [] };
      case "pass":
        return { kind: "pass", label: "过", pieces: [] };
    }
  } else if (f.case === "daqi") {
    const k = f.value.kind;
    switch (k.case) {
      case "bid":
        return { kind: "bid", label: "叫主", pieces: k.value.cards.map(card) };
      case "pass":
        return { kind: "pass", label: "不叫", pieces: [] };
      case "bury":
        return { kind: "bury", label: "埋底", pieces: k.value.cards.map(card) };
      case "playCards":
        return { kind: "play_cards", label: "出", pieces: k.value.cards.map(card) };
    }
  }
  return { kind: "unknown", label: "?", pieces: [] };
}

/** One button per legal action, in the server's order; `act` sends the chosen one. */
export function actionButtons(legal: Action[], act: (a: Action) => void): HTMLElement {
  const box = el("div", { class: "actions", id: "actions" });
  legal.forEach((a, i) => {
    const shown = describe(a);
    const button = el("button", { class: `act k-${shown.kind}`, "data-kind": shown.kind, "data-index": String(i) },
      el("b", {}, shown.label), ...shown.pieces);
    button.addEventListener("click", () => act(a));
    box.append(button);
  });
  return box;
}
