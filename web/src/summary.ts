// The hand-end summary: who won what and why, from the hand's HandEnded event (each factor of the
// score shown), with the facts it shows in data-summary for tests to compare with the server.
import { el, faceValue, seatName, tile, card } from "./pieces";

type Data = Record<string, unknown>;

// What a HandEnded reveals for checking (decks, salts, hands) is not part of the summary.
const REVEALS = new Set(["order", "salt", "seed", "hands", "concealed_kongs", "face_down", "deck"]);

const OUTCOMES: Record<string, string> = {
  self_draw: "自摸", kong_self_draw: "暗杠杠上开花(自摸)", kong_replacement_win: "杠上开花",
  discard_win: "点炮", robbed_kong: "抢杠胡", draw: "流局(黄庄)", kong_draw: "流局(杠)", xuezhan: "血战",
};
const SELF_DRAWN = new Set(["self_draw", "kong_self_draw"]);

const DAQI_GRADES: Record<number, string> = {
  3: "庄家方大光", 2: "庄家方小光", 1: "庄家方胜", [-1]: "抓分方胜", [-2]: "抓分方胜(双)", [-3]: "抓分方大胜",
};

function factor(label: string, ...value: (Node | string)[]): HTMLElement {
  return el("li", {}, el("span", {}, label), " ", ...value);
}

function koudian(d: Data, mine: number, base: number): HTMLElement[] {
  const outcome = String(d.outcome);
  const lines = [factor("结果", OUTCOMES[outcome] ?? outcome)];
  if (d.winner !== undefined && d.winner !== null && typeof d.tile === "string") {
    const face = faceValue(d.tile);
    const double = SELF_DRAWN.has(outcome);
    lines.push(
      factor("胡", seatName(d.winner as number, mine), " 胡 ", tile(d.tile)),
      factor("手牌", ...(((d.hands as string[][] | undefined)?.[d.winner as number]) ?? []).map(tile)),
      factor("点数", `牌面 ${face}${double ? " × 2 (自摸)" : ""} = ${d.points} 点`),
      factor("底分", `${d.points} × ${base} = ${(d.points as number) * base}`),
    );
    if (d.source !== undefined && d.source !== null) lines.push(factor("放炮/杠", seatName(d.source as number, mine)));
    lines.push(factor("付", d.payer !== undefined && d.payer !== null ? `${seatName(d.payer as number, mine)} 包三家` : "三家各付"));
  }
  return lines;
}

function daqi(d: Data, mine: number): HTMLElement[] {
  const friend = d.friend as number | null | undefined;
  return [
    factor("庄家", seatName(d.declarer as number, mine)),
    factor("朋友", friend === null || friend === undefined ? "无 (一打四)" : seatName(friend, mine)),
    factor("抓分方得分", String(d.taker_points)),
    factor("底牌", `${d.bottom_points} 分 × 抠底 ${d.kou_di} 倍`, " ", ...((d.bottom as string[]) ?? []).map(card)),
    factor("等级", `${d.grade} (${DAQI_GRADES[d.grade as number] ?? ""})`),
  ];
}

interface Fan {
  name: string;
  value: number;
  times?: number;
}

// JJ 国标: each win (a Won event of the hand) with its fans, their total and who paid it.
function jj(d: Data, mine: number, wins: Data[]): HTMLElement[] {
  const lines = [factor("结果", OUTCOMES[String(d.outcome)] ?? String(d.outcome))];
  for (const w of wins) {
    const scored = (w.scored ?? {}) as { fans?: Fan[]; total?: number };
    lines.push(
      factor("胡", seatName(w.seat as number, mine), " 胡 ", tile(String(w.tile)), ` ${OUTCOMES[String(w.how)] ?? String(w.how)}`),
      factor("番", (scored.fans ?? []).map((f) => `${f.name} ${f.value}${(f.times ?? 1) > 1 ? `×${f.times}` : ""}`).join(" · "),
        ` = ${scored.total ?? 0} 番`),
    );
  }
  return lines;
}

/** The summary panel of a hand that ended with event `type` carrying `data`; `wins` are the
 * hand's own win events where a ruleset scores each win apart (JJ). */
export function summary(type: string, data: Data, mine: number, base: number, wins: Data[] = []): HTMLElement {
  const shown: Data = { type };
  for (const [k, v] of Object.entries(data)) if (!REVEALS.has(k)) shown[k] = v;
  const lines = type.startsWith("daqi.") ? daqi(data, mine)
    : type.startsWith("koudian.") ? koudian(data, mine, base)
    : jj(data, mine, wins);
  const deltas = (data.deltas as number[]) ?? [];
  return el("section", { class: "summary", id: "summary", "data-summary": JSON.stringify(shown) },
    el("h2", {}, "本局结算"),
    el("ul", {}, ...lines),
    el("table", {}, el("tr", {}, ...deltas.map((_, s) => el("th", {}, seatName(s, mine)))),
      el("tr", {}, ...deltas.map((x) => el("td", { class: x > 0 ? "plus" : x < 0 ? "minus" : "" }, x > 0 ? `+${x}` : String(x))))));
}
