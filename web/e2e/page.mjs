// What every driver under web/e2e/ shares: headless Chromium (the system's, never a downloaded
// one), JSON lines to the test on stdout and lines from it on stdin, and a guest who creates a
// table from the lobby and sits at it.
import { chromium } from "playwright-core";
import { createInterface } from "node:readline";

/** One JSON line to the test. */
export const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

/** The test's lines on stdin: `next()` waits for one; `close()` lets the process end. */
export function listen() {
  const lines = createInterface({ input: process.stdin });
  const input = lines[Symbol.asyncIterator]();
  return { next: () => input.next(), close: () => lines.close() };
}

/** A browser and one page at `viewport` (a phone's touch screen below 500 px wide). */
export async function open(viewport) {
  const browser = await chromium.launch({
    executablePath: process.env.QIPAI_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  const phone = viewport.width < 500;
  const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on("pageerror", (e) => process.stderr.write(`page error: ${e}\n`));
  page.on("console", (m) => m.type() === "error" && process.stderr.write(`console: ${m.text()}\n`));
  return { browser, page };
}

/** Logs in as a guest, creates a `ruleset` table with `options` and sits there (not ready yet):
 * the table's id, the seat, and the guest's player id and token (for the test's own calls). */
export async function sitAtNewTable(page, url, ruleset, options) {
  await page.goto(`${url}?record`);
  await page.fill("#login-name", "browser");
  await page.click("#login");
  await page.selectOption("#ruleset", ruleset);
  await page.click("details > summary");
  await page.fill("#options", JSON.stringify(options));
  await page.click("#create");
  await page.waitForSelector("#table-id");
  const tableId = await page.textContent("#table-id");
  await page.waitForSelector("#ready");
  const seat = Number(await page.getAttribute("#table", "data-seat"));
  const session = await page.evaluate(() => JSON.parse(localStorage.getItem("qipai.session")));
  return { tableId, seat, playerId: session.playerId, token: session.token };
}
