// The reference web table: guest login, create or join a table, then play the seat from its
// Watch stream. Everything drawn comes from the server's typed views and events.
import { Code, ConnectError } from "@connectrpc/connect";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { ActionSchema, type Action } from "../gen/qipai/v1/actions_pb";
import { RuleViolationSchema } from "../gen/qipai/v1/common_pb";
import type { TableUpdate, ViewResponse } from "../gen/qipai/v1/game_pb";
import { actionButtons } from "./actions";
import { auth, game, loadSession, newId, saveSession, useToken, type Session } from "./api";
import { renderDaqi, type Picking } from "./daqi";
import { Deals } from "./deals";
import { renderMahjong } from "./mahjong";
import type { Drawn } from "./layout";
import { eventLine } from "./history";
import { lobby, login } from "./lobby";
import { el } from "./pieces";
import { summary } from "./summary";
import { Feed } from "./watch";

interface Logged {
  version: string;
  type: string;
  data: Record<string, unknown>;
}

/** What this tab has seen of a table: kept across reloads, so the stream resumes where it was. */
interface Seen {
  version: string;
  events: Logged[];
}

const root = document.getElementById("app")!;
const TABLE_KEY = "qipai.table";
const KEPT_EVENTS = 600;
const SILENCE_MS = 10_000;

let session: Session | null = loadSession();
let tableId = "";
let view: ViewResponse | undefined;
let actedOn: ViewResponse | undefined; // the view whose decision this seat already sent
let floor = 0n; // views older than this seat's last acknowledged action are stale
let pending = false;
let live = false;
let deadlineAt = 0;
let seen: Seen = { version: "0", events: [] };
let feed: Feed | undefined;
let problem = "";
let refreshing: ReturnType<typeof setTimeout> | undefined;
let picked = new Set<number>(); // 打七: cards picked for a free play or burial, by hand position
let pickedAt = -1n; // the view version the picks belong to
let heardAt = 0; // when the stream last delivered an update
let deals: Deals | undefined; // this seat's fair-deal nonces and checks

function logKey(id: string): string {
  return `qipai.log.${id}`;
}

function explain(err: unknown): string {
  if (!(err instanceof ConnectError)) return err instanceof Error ? err.message : String(err);
  const e = err;
  const rule = e.findDetails(RuleViolationSchema)[0];
  return rule ? rule.message : `${Code[e.code]}: ${e.rawMessage}`;
}

// Writes carry an id (action_id, request_id), so one cut off by the network (Envoy or a node
// restarting) is sent again as it was: the server applies it once.
async function persisting<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const code = ConnectError.from(err).code;
      if (attempt >= 6 || (code !== Code.Unavailable && code !== Code.Unknown)) throw err;
      await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 4000) * (0.5 + Math.random())));
    }
  }
}

async function guarded(what: () => Promise<void>): Promise<void> {
  problem = "";
  try {
    await what();
  } catch (err) {
    if (ConnectError.from(err).code === Code.Unauthenticated) {
      logout();
      return;
    }
    problem = explain(err);
    draw();
  }
}

// --- screens -------------------------------------------------------------------------------

function loginScreen(): HTMLElement {
  return login((name) => guarded(async () => {
    const reply = await auth.guestLogin({ name: name || "玩家" });
    session = { token: reply.token, playerId: reply.playerId, name };
    saveSession(session);
    useToken(session.token);
    draw();
  }));
}

function lobbyScreen(): HTMLElement {
  return lobby(session?.name ?? "", {
    create: (ruleset, optionsJson) => guarded(async () => {
      let options: JsonObject | undefined;
      try {
        options = optionsJson ? (JSON.parse(optionsJson) as JsonObject) : undefined;
      } catch {
        throw new Error("选项不是有效的 JSON");
      }
      const made = await game.createTable({ ruleset, options, requestId: newId() });
      await game.join({ tableId: made.tableId, requestId: newId() });
      await enter(made.tableId);
    }),
    join: (id) => guarded(async () => {
      await game.join({ tableId: id, requestId: newId() });
      await enter(id);
    }),
    logout,
  });
}

function tableScreen(): HTMLElement {
  const mine = view?.seat ?? -1;
  const top = el("header", { class: "bar" },
    el("span", {}, "牌桌 ", el("code", { id: "table-id" }, tableId)),
    el("span", { id: "conn", class: live ? "live" : "down" }, live ? "● 在线" : "○ 重连中"),
    el("span", { id: "version" }, `v${view?.version ?? 0n}`));
  const leave = el("button", { class: "quiet" }, "离开");
  leave.addEventListener("click", () => guarded(async () => {
    await game.leave({ tableId, requestId: newId() });
    exit();
  }));
  top.append(leave);
  const body = el("main", { class: "table", id: "table", "data-seat": String(mine) });
  if (pending) body.setAttribute("data-busy", ""); // an action of this seat is in flight
  if (!view) return el("div", {}, top, body, el("p", {}, "载入中…"));

  const fresh = view !== actedOn && view.version >= floor && !pending;
  const ruleset = view.view?.ruleset;
  let drawn: Drawn | undefined;
  let base = 1;
  if (ruleset?.case === "koudian" || ruleset?.case === "jj") {
    const discards = new Map<string, Action>();
    if (fresh) {
      for (const a of view.legalActions) {
        if (a.family.case === "mahjong" && a.family.value.kind.case === "discard") discards.set(a.family.value.kind.value.tile, a);
      }
    }
    drawn = renderMahjong(ruleset.value, mine, new Set(discards.keys()), (t) => act(discards.get(t)!));
    base = (ruleset.case === "koudian" ? ruleset.value.options?.baseScore : ruleset.value.options?.base) ?? 1;
  } else if (ruleset?.case === "daqi") {
    drawn = renderDaqi(ruleset.value, mine, fresh ? picking() : undefined);
    base = ruleset.value.options?.base ?? 1;
  }
  const seats = view.players.length;
  const status = view.status === "in_hand" ? "对局中"
    : view.status === "match_over" ? "比赛结束"
    : `等待开局 · 已入座 ${view.players.filter(Boolean).length}/${seats} · 已准备 ${view.ready.length}/${seats}`;
  body.append(el("div", { id: "status", "data-status": view.status }, status, el("span", { id: "countdown" })));
  if (drawn) body.append(drawn.table);

  const controls = el("div", { class: "controls" });
  if (mine < 0) {
    const sit = el("button", { id: "sit" }, "入座");
    sit.addEventListener("click", () => guarded(async () => {
      await game.join({ tableId, requestId: newId() });
      await enter(tableId); // watching needs a seat: start the stream again
    }));
    controls.append(sit);
  } else if (view.status === "waiting_for_hand" && !view.ready.includes(mine)) {
    const ready = el("button", { id: "ready" }, "准备");
    ready.addEventListener("click", () => guarded(async () => {
      const request = { tableId, requestId: newId(), nonceCommitment: await deals?.commitment() };
      await persisting(() => game.ready(request));
      await refresh();
    }));
    controls.append(ready);
  } else if (view.legalActions.length && fresh) {
    controls.append(actionButtons(view.legalActions, act));
    const free = freeChoice(view);
    if (free) controls.append(free);
  }
  if (view.autoPlay.includes(mine)) {
    const takeBack = el("button", { id: "take-back" }, "取消托管");
    takeBack.addEventListener("click", () => guarded(async () => {
      await game.takeBack({ tableId, requestId: newId() });
      await refresh();
    }));
    controls.append(el("p", { class: "auto" }, "托管中: 服务器替你出牌, 出一手或点取消托管即收回 ", takeBack));
  }
  if (drawn) body.append(drawn.own);
  body.append(controls);
  if (problem) body.append(el("p", { id: "error", class: "error" }, problem));

  const endedAt = seen.events.findLastIndex((e) => e.type.endsWith(".HandEnded"));
  if (endedAt >= 0) {
    const ended = seen.events[endedAt];
    const started = seen.events.findLastIndex((e, i) => i < endedAt && e.type.endsWith(".HandStarted"));
    const wins = seen.events.slice(started + 1, endedAt).filter((e) => e.type.endsWith(".Won")).map((e) => e.data);
    body.append(summary(ended.type, ended.data, mine, base, wins));
  }
  body.append(deals?.element() ?? "");
  const lines = seen.events.map((e) => eventLine(e.type, e.data, e.version, mine)).filter((x): x is HTMLElement => x !== null).slice(-12).reverse();
  body.append(el("ol", { id: "feed", class: "feed" }, ...lines));
  return el("div", {}, top, body);
}

// 打七's lists of burials and of some follows are representative, not complete (the server judges
// any other choice): a player may also pick cards in the hand and play or bury exactly those.
function picking(): Picking {
  if (view && view.version !== pickedAt) {
    picked = new Set();
    pickedAt = view.version;
  }
  return {
    picked,
    toggle: (i) => {
      if (picked.has(i)) picked.delete(i);
      else picked.add(i);
      draw();
    },
  };
}

function freeChoice(v: ViewResponse): HTMLElement | null {
  const daqi = v.view?.ruleset.case === "daqi" ? v.view.ruleset.value : undefined;
  const kinds = new Set(v.legalActions.map((a) => (a.family.case === "daqi" ? a.family.value.kind.case : "")));
  const kind = kinds.has("bury") ? "bury" : kinds.has("playCards") ? "playCards" : "";
  if (!daqi || !kind) return null;
  const cards = [...picked].sort((a, b) => a - b).map((i) => daqi.hand[i]);
  const label = kind === "bury" ? `埋底所选 (${cards.length}/8)` : `出所选 (${cards.length})`;
  const button = el("button", { id: "play-picked", class: "act" }, label);
  if (!cards.length || (kind === "bury" && cards.length !== 8)) button.setAttribute("disabled", "");
  button.addEventListener("click", () => act(create(ActionSchema, {
    family: { case: "daqi", value: { kind: kind === "bury" ? { case: "bury", value: { cards } } : { case: "playCards", value: { cards } } } },
  })));
  return el("div", { class: "free" }, el("span", {}, "或点选手牌: "), button);
}

// Every draw replaces the page's elements, and a browser drops a click whose button went away
// between press and release: with the table moving every 300 ms (托管: the server plays this seat)
// a person's click on 取消托管 was lost more often than not. So while a pointer is down, drawing
// waits for its release (or HOLD_MS, so a finger resting on the page does not freeze the table).
const HOLD_MS = 1000;
let pressedAt = 0; // when a pointer went down on the page; 0: none is down
let held: ReturnType<typeof setTimeout> | undefined; // a draw put off by a press
document.addEventListener("pointerdown", () => { pressedAt = Date.now(); }, true);
for (const up of ["pointerup", "pointercancel"]) {
  document.addEventListener(up, () => {
    pressedAt = 0;
    // After this input's click has run (it is dispatched right after the release).
    if (held !== undefined) {
      clearTimeout(held);
      held = setTimeout(draw);
    }
  }, true);
}

function draw(): void {
  clearTimeout(held);
  held = undefined;
  const pressing = pressedAt ? Date.now() - pressedAt : HOLD_MS;
  if (pressing < HOLD_MS) {
    held = setTimeout(draw, HOLD_MS - pressing);
    return;
  }
  let screen: HTMLElement;
  if (!session) screen = loginScreen();
  else if (!tableId) screen = lobbyScreen();
  else screen = tableScreen();
  if (problem && !tableId) screen.append(el("p", { id: "error", class: "error" }, problem));
  root.replaceChildren(screen);
  tick();
}

function tick(): void {
  const box = document.getElementById("countdown");
  if (!box) return;
  const shown = deadlineAt > 0 && view?.status === "in_hand";
  const left = Math.max(0, Math.ceil((deadlineAt - Date.now()) / 1000));
  box.textContent = shown ? ` 限时 ${left} 秒` : "";
  // The instant itself, as the server gave it: on hover as a clock time, and for tests.
  if (shown) {
    box.setAttribute("data-deadline-at", String(deadlineAt));
    box.title = `到时 ${new Date(deadlineAt).toLocaleTimeString()}`;
  } else {
    box.removeAttribute("data-deadline-at");
    box.removeAttribute("title");
  }
  box.classList.toggle("hurry", shown && left <= 5);
}
setInterval(tick, 250);

// --- the table -------------------------------------------------------------------------------

function setView(v: ViewResponse): void {
  if (view && v.version < view.version) return;
  view = v;
  // The server's instant (the same after a reload); a view without it counts the full timeout.
  deadlineAt = v.deadlineAtMs > 0n ? Number(v.deadlineAtMs) : v.deadlineMs > 0n ? Date.now() + Number(v.deadlineMs) : 0;
  draw();
}

async function refresh(): Promise<void> {
  setView(await game.getView({ tableId }));
}

function onUpdate(u: TableUpdate): void {
  heardAt = Date.now();
  for (const e of u.events) {
    const data = JSON.parse(e.dataJson) as Record<string, unknown>;
    seen.events.push({ version: String(e.version), type: e.type, data });
    deals?.feed(e.type, data);
  }
  seen.version = String(u.version);
  // Kept: enough for the event list and the last hand's summary (a hand is a few hundred events).
  if (seen.events.length > KEPT_EVENTS) seen.events = seen.events.slice(-KEPT_EVENTS);
  sessionStorage.setItem(logKey(tableId), JSON.stringify(seen));
  if (u.view) setView(u.view);
  else if (u.events.length) {
    // Another seat's move changed the public table; the stream sends views only when this
    // seat's decisions change, so the table is fetched again (at most every 150 ms).
    draw();
    clearTimeout(refreshing);
    refreshing = setTimeout(() => guarded(refresh), 150);
  }
}

function act(a: Action): void {
  const decidedOn = view;
  pending = true;
  draw();
  guarded(async () => {
    try {
      const request = { tableId, actionId: newId(), action: a };
      const ack = await persisting(() => game.act(request));
      actedOn = decidedOn;
      floor = ack.version;
    } catch (err) {
      await refresh();
      throw err;
    } finally {
      pending = false;
      draw();
    }
  });
}

async function enter(id: string): Promise<void> {
  feed?.stop();
  tableId = id;
  localStorage.setItem(TABLE_KEY, id);
  history.replaceState(null, "", `#${id}`);
  const kept = sessionStorage.getItem(logKey(id));
  seen = kept ? (JSON.parse(kept) as Seen) : { version: "0", events: [] };
  view = undefined;
  actedOn = undefined;
  floor = 0n;
  draw();
  await refresh();
  watch();
}

function watch(): void {
  feed?.stop();
  heardAt = Date.now();
  const id = tableId;
  deals = new Deals(id, view?.seat ?? -1, (nonce) => persisting(() => game.ready({ tableId: id, requestId: newId(), nonce })), draw);
  for (const e of seen.events) deals.feed(e.type, e.data); // what this tab kept: the stream resumes after it
  feed = new Feed(tableId, BigInt(seen.version), onUpdate, (isLive, error) => {
    live = isLive;
    if (error) problem = error;
    draw();
  });
  void feed.run();
}

// A stream can die without an error (a phone asleep, a NAT forgetting the connection): after
// 10 s of silence the table is asked directly, and a stream that fell behind it starts over
// from the last version it delivered.
async function checkStream(): Promise<void> {
  if (!feed || !tableId || document.hidden || Date.now() - heardAt < SILENCE_MS) return;
  const fresh = await game.getView({ tableId });
  setView(fresh);
  if (fresh.version > BigInt(seen.version) && Date.now() - heardAt >= SILENCE_MS) watch();
}
setInterval(() => void checkStream().catch(() => undefined), 5000);
document.addEventListener("visibilitychange", () => void checkStream().catch(() => undefined));

function exit(): void {
  feed?.stop();
  feed = undefined;
  tableId = "";
  view = undefined;
  localStorage.removeItem(TABLE_KEY);
  history.replaceState(null, "", location.pathname + location.search);
  draw();
}

function logout(): void {
  exit();
  session = null;
  saveSession(null);
  useToken("");
  draw();
}

if (session) useToken(session.token);
const resume = location.hash.slice(1) || localStorage.getItem(TABLE_KEY) || "";
if (session && resume) void guarded(() => enter(resume));
else draw();
