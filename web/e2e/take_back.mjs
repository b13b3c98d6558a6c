// Leaves one seat of a new table to the server until the page says the server plays it (托管),
// takes it back with the page's 取消托管 button, then plays the seat's next decision by clicking,
// once that decision has stayed open well past the server's auto-play delay. Driven by
// tests/e2e/web/test_web_take_back.py: one JSON argument in, JSON lines out.
//
// args: url, ruleset, options (object), viewport {width, height}, waitMs (how long auto-play may
// take to come), pressMs (how long a click holds the button down, as a person's does),
// clickAtLeft (the countdown's seconds at which the next decision is clicked), shots {auto, back,
// played} (paths), received (path: every message the page received).
// out: {table_id, seat, player_id, token} once seated; {auto: shown} once the page shows auto-play,
// then waits for a line on stdin; {back: shown} once the page no longer does, then waits for a
// line; {done: true, played: shown, clicked: shown, moved: [...], readied} once its click is answered;
// {failed: the error, shown} instead when something did not come in time.
// A `shown` is what the page shows: version, auto (the 托管 paragraph's text, "" without),
// countdown (its text), deadline_at (the instant it counts down to), due (that instant as a clock
// time, on hover), kinds (the action buttons), feed (the history's lines: [version, text]).
import { writeFileSync } from "node:fs";
import { listen, open, say, sitAtNewTable } from "./page.mjs";

const args = JSON.parse(process.argv[2]);
const input = listen();
const { browser, page } = await open(args.viewport);

/** What the page shows now, read in one go (the page redraws as the table moves). */
const shown = () => page.evaluate(() => {
  const countdown = document.querySelector("#countdown");
  return {
    version: Number(document.querySelector("#version")?.textContent?.slice(1) ?? -1),
    status: document.querySelector("#status")?.getAttribute("data-status") ?? "",
    auto: document.querySelector("p.auto")?.textContent ?? "",
    takeBack: document.querySelector("#take-back") !== null,
    countdown: countdown?.textContent?.trim() ?? "",
    deadline_at: Number(countdown?.getAttribute("data-deadline-at") ?? 0),
    due: countdown?.getAttribute("title") ?? "",
    kinds: [...document.querySelectorAll("#actions button")].map((b) => b.getAttribute("data-kind")),
    feed: [...document.querySelectorAll("#feed li")].map((li) => [Number(li.getAttribute("data-version")), li.textContent.trim()]),
    error: document.querySelector("#error")?.textContent ?? "",
  };
});

try {
  const sat = await sitAtNewTable(page, args.url, args.ruleset, args.options);
  say({ table_id: sat.tableId, seat: sat.seat, player_id: sat.playerId, token: sat.token });
  await page.click("#ready");

  // Hands off: the seat times out until the page says the server plays it, and until when.
  await page.waitForFunction(() => document.querySelector("#take-back") && document.querySelector("p.auto")
    && document.querySelector("#countdown[data-deadline-at]"), null, { timeout: args.waitMs, polling: 50 });
  say({ auto: await shown() });
  await page.screenshot({ path: args.shots.auto, fullPage: true });
  await input.next();

  // 取消托管, pressed as long as a person presses it, while the server keeps playing the seat.
  await page.click("#take-back", { delay: args.pressMs, timeout: 5000 });
  await page.waitForFunction(() => !document.querySelector("p.auto, #take-back"), null, { timeout: 10000, polling: 50 });
  const back = await shown();
  say({ back });
  await page.screenshot({ path: args.shots.back, fullPage: true });
  await input.next();

  // The seat's next decision waits for its player: the page clicks it once the countdown is down
  // to `clickAtLeft` seconds. A decision that went without a click (a claim window another seat's
  // win closed, or the server playing the seat) is reported, and the next one is waited for; a
  // hand that ended meanwhile is followed by the next (准备, as the page's player would).
  const moved = [];
  let clicked = null;
  let readied = 0;
  const deadline = Date.now() + args.waitMs;
  while (!clicked) {
    if (Date.now() > deadline) throw new Error(`no decision of the seat clicked: ${JSON.stringify(moved)}`);
    const next = await page.waitForSelector("#actions button, #ready", { timeout: args.waitMs });
    if ((await next.getAttribute("id")) === "ready") {
      await next.click({ timeout: 2000 });
      await page.waitForSelector("#ready", { state: "detached", timeout: 10000 });
      readied += 1;
      continue;
    }
    const open = await shown();
    if (!open.kinds.length) continue;
    await page.waitForFunction(({ version, left }) => {
      const at = Number(document.querySelector("#version")?.textContent?.slice(1));
      const secs = Number(document.querySelector("#countdown")?.textContent?.match(/\d+/)?.[0] ?? Infinity);
      return at !== version || !document.querySelector("#actions button") || secs <= left;
    }, { version: open.version, left: args.clickAtLeft }, { timeout: args.waitMs, polling: 50 });
    const now = await shown();
    if (now.version !== open.version || !now.kinds.length) {
      moved.push({ open, now });
      continue;
    }
    const pass = now.kinds.indexOf("pass");
    const choice = pass >= 0 ? pass : 0;
    await page.click(`#actions button >> nth=${choice}`, { delay: args.pressMs, timeout: 2000 });
    clicked = { ...now, kind: now.kinds[choice] };
  }
  // Answered: the page's action is acknowledged and the table has moved past that decision.
  await page.waitForFunction((version) => !document.querySelector("#table[data-busy]")
    && Number(document.querySelector("#version")?.textContent?.slice(1)) > version,
  clicked.version, { timeout: 10000, polling: 50 });
  const played = await shown();
  await page.screenshot({ path: args.shots.played, fullPage: true });
  writeFileSync(args.received, JSON.stringify(await page.evaluate(() => window.qipaiReceived())));
  say({ done: true, played, clicked, moved, readied });
} catch (err) {
  // What the page showed when it went wrong, for the test's message, and a picture of it.
  say({ failed: String(err).split("\n")[0], shown: await shown().catch(() => null) });
  await page.screenshot({ path: args.shots.auto.replace(/-auto\.png$/, "-failed.png"), fullPage: true }).catch(() => undefined);
  process.exitCode = 1;
} finally {
  input.close();
  await browser.close();
}
