// The table's history as the players read it: who did what, newest first.
import { card, el, seatName, tile } from "./pieces";

// What players call each event; events not listed (a card dealt, bookkeeping) are not news.
const WORDS: Record<string, string> = {
  TileDrawn: "摸牌", TileDiscarded: "打", Ponged: "碰", Konged: "杠", ReadyDeclared: "报听",
  ClaimAnswered: "应", HandStarted: "开局", HandEnded: "本局结束", BidMade: "叫主", Passed: "不叫",
  BottomTaken: "拿底", BottomBuried: "埋底", CardsPlayed: "出", TrickWon: "赢墩",
  FriendRevealed: "朋友现身", PlayerSeated: "入座", PlayerReady: "准备", PlayerLeft: "离座",
  AutoPlaySet: "托管", SeatTimedOut: "超时", PlayStarted: "开始出牌", DealerChosen: "定庄",
  // A missed claim window and the server answering them: only the seat that missed it gets these.
  ClaimTimedOut: "应牌超时", ClaimAutoPlaySet: "托管应牌",
};

/** What players call the event, or null when it is not news. */
export function eventWord(type: string, d: Record<string, unknown>): string | null {
  const kind = type.split(".")[1] ?? type;
  // A seat that acts after a timeout gets its streak back to 0: bookkeeping, not a timeout.
  if ((kind === "SeatTimedOut" || kind === "ClaimTimedOut") && d.streak === 0) return null;
  if (kind === "AutoPlaySet" && d.on === false) return "取消托管"; // the seat is its player's again
  if (kind === "ClaimAutoPlaySet" && d.on === false) return "取消托管应牌";
  return WORDS[kind] ?? null;
}

/** One line of the table's history, or null for an event that is not news. */
export function eventLine(type: string, d: Record<string, unknown>, version: string, mine: number): HTMLElement | null {
  const word = eventWord(type, d);
  if (!word) return null;
  const who = typeof d.seat === "number" ? seatName(d.seat, mine) : typeof d.winner === "number" ? seatName(d.winner, mine) : "";
  const pieces = typeof d.tile === "string" && d.tile ? [tile(d.tile)] : Array.isArray(d.cards) ? (d.cards as string[]).map(card) : [];
  return el("li", { "data-version": version }, `${who} ${word} `, ...pieces);
}
