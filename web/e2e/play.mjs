// Plays one seat of a table from the web page in headless Chromium (the system's, never a
// downloaded one), clicking the page's own buttons. Driven by tests/e2e/web: one JSON argument in,
// JSON lines out: {"table_id", "seat"} once the page sits at its new table, then {"done", ...}.
//
// args: url, ruleset, options (object), viewport {width, height}, seed, reloadAfter (clicks; 0:
// never), pauseAfter (clicks: then say {"paused"} and wait for a line on stdin), shotAfter
// (clicks: then a screenshot to shots.hand), shots {hand, end} (paths), received (path: every
// message the page received, per page load), recheck (at the hand's end, after the deal check
// is shown: say {"paused": "end"}, wait for a line on stdin, then drop the tab's copy of the
// table's events and reload, so the page reads the whole table again, and check it again).
import { writeFileSync } from "node:fs";
import { listen, open, say, sitAtNewTable } from "./page.mjs";

const args = JSON.parse(process.argv[2]);
const input = listen();

// A small seeded generator: the same seed clicks the same way.
let state = args.seed >>> 0 || 1;
const random = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);

const { browser, page } = await open(args.viewport);

try {
  const { tableId, seat } = await sitAtNewTable(page, args.url, args.ruleset, args.options);
  say({ table_id: tableId, seat });
  await page.click("#ready");

  let clicks = 0;
  let reloaded = false;
  let shot = false;
  let picks = 0;
  let freeTurn = 0;
  let wide = 0; // the page's widest layout seen mid-hand and at the end (a phone must not scroll sideways)
  const deadline = Date.now() + (args.timeoutMs ?? 240000);
  for (;;) {
    if (Date.now() > deadline) throw new Error(`no hand end after ${clicks} clicks`);
    const next = await page.waitForSelector("#actions button, #summary", { timeout: 120000 });
    if ((await next.getAttribute("id")) === "summary") break;
    const buttons = await page.$$("#actions button");
    if (!buttons.length) continue;
    if (clicks === args.shotAfter && !shot) {
      await page.screenshot({ path: args.shots.hand, fullPage: true });
      shot = true;
      wide = Math.max(wide, await page.evaluate(() => document.documentElement.scrollWidth));
    }
    const kinds = await Promise.all(buttons.map((b) => b.getAttribute("data-kind")));
    const win = kinds.indexOf("win");
    const choice = win >= 0 ? win : Math.floor(random() * buttons.length);
    try {
      const cards = await buttons[choice].$$eval("[data-card]", (xs) => xs.map((x) => x.getAttribute("data-card")));
      const tiles = await buttons[choice].$$eval("[data-tile]", (xs) => xs.map((x) => x.getAttribute("data-tile")));
      const free = ["discard", "play_cards", "bury"].includes(kinds[choice]) && freeTurn++ % 2 === 0;
      if (free && kinds[choice] === "discard") {
        // Every other 扣点 discard is made by tapping the tile in the hand.
        await page.click(`#hand .tile.tap[data-tile="${tiles[0]}"]`, { timeout: 2000 });
        picks += 1;
      } else if (free) {
        // And every other 打七 play or burial by picking its cards in the hand.
        for (const c of cards) await page.click(`#hand .card[data-card="${c}"]:not(.picked)`, { timeout: 2000 });
        await page.click("#play-picked", { timeout: 2000 });
        picks += 1;
      } else {
        await buttons[choice].click({ timeout: 2000 });
      }
      clicks += 1;
    } catch {
      continue; // the table moved on and the page drew new buttons: look again
    }
    // Reload or cut the connection only once the page's action is answered: a call cut off in
    // flight may still be applied (that is the server's business, not the page's).
    if (clicks === args.pauseAfter || clicks === args.reloadAfter) await page.waitForSelector("#table:not([data-busy])");
    if (clicks === args.pauseAfter) {
      say({ paused: clicks });
      await input.next();
    }
    if (args.reloadAfter && clicks === args.reloadAfter && !reloaded) {
      await page.reload();
      await page.waitForSelector("#table-id");
      reloaded = true;
    }
  }
  await page.waitForSelector("#status[data-status=waiting_for_hand]");
  const summary = JSON.parse(await page.getAttribute("#summary", "data-summary"));
  const deltas = await page.$$eval("#summary td", (cells) => cells.map((c) => Number(c.textContent)));
  // The page checks the deal once the table reveals it (DealRevealed follows the hand's end).
  const dealCheck = await (await page.waitForSelector("#deal-check", { timeout: 30000 })).textContent();
  await page.screenshot({ path: args.shots.end, fullPage: true });
  const streams = await page.evaluate(() => window.qipaiStreams);
  wide = Math.max(wide, await page.evaluate(() => document.documentElement.scrollWidth));
  writeFileSync(args.received, JSON.stringify(await page.evaluate(() => window.qipaiReceived())));
  let recheck = null;
  if (args.recheck) {
    say({ paused: "end", dealCheck });
    await input.next();
    await page.evaluate((id) => sessionStorage.removeItem(`qipai.log.${id}`), tableId);
    await page.reload();
    recheck = await (await page.waitForSelector("#deal-check", { timeout: 60000 })).textContent();
    await page.screenshot({ path: args.shots.end.replace(/\.png$/, "-recheck.png"), fullPage: true });
  }
  say({ done: true, clicks, picks, reloaded, summary, deltas, streams, wide, dealCheck, recheck });
} finally {
  input.close();
  await browser.close();
}
