// The page's half of fair deals (docs/fairness.md): a fresh nonce's commitment goes with each
// Ready, the nonce itself once the table has committed the deal, and every hand this seat played
// is checked at its end (web/src/fairness.ts) — the verdict is shown on the table.
import { DealChecker, hex, newNonce, nonceCommitment, unhex, verdict, type HandCheck } from "./fairness";
import { el } from "./pieces";

// The nonces live as long as the tab (a reload between commit and reveal must still reveal).
function nonceKey(tableId: string): string {
  return `qipai.nonces.${tableId}`;
}

export class Deals {
  private checker: DealChecker;
  private sent = new Set<string>();
  private checking: Promise<void> = Promise.resolve();
  /** Every hand checked since the page opened the table, in order. */
  readonly checks: HandCheck[] = [];

  /** `reveal` sends this seat's nonce (a Ready with `nonce`); `changed` redraws the page. */
  constructor(
    private tableId: string,
    seat: number,
    private reveal: (nonce: Uint8Array) => Promise<unknown>,
    private changed: () => void,
  ) {
    const kept = JSON.parse(sessionStorage.getItem(nonceKey(tableId)) ?? "{}") as Record<string, string>;
    this.checker = new DealChecker(seat, new Map(Object.entries(kept).map(([c, n]) => [c, unhex(n)])));
  }

  /** A fresh nonce's commitment for the next Ready (the nonce is kept for its reveal). */
  async commitment(): Promise<string> {
    const nonce = newNonce();
    const c = await nonceCommitment(nonce);
    this.checker.ownNonces.set(c, nonce);
    const kept = Object.fromEntries([...this.checker.ownNonces].map(([k, n]) => [k, hex(n)]));
    sessionStorage.setItem(nonceKey(this.tableId), JSON.stringify(kept));
    return c;
  }

  /** One event of this seat's stream, in order. */
  feed(type: string, data: Record<string, unknown>): void {
    const ended = this.checker.feed(type, data);
    if (ended) {
      this.checking = this.checking.then(async () => {
        this.checks.push(await this.checker.check(ended));
        this.changed();
      });
    }
    const nonce = this.checker.awaitingMyNonce();
    if (nonce && !this.sent.has(hex(nonce))) {
      this.sent.add(hex(nonce));
      // A reveal that never arrives only makes this seat's nonce a server nonce (NonceWithheld).
      this.reveal(nonce).catch(() => this.sent.delete(hex(nonce)));
    }
  }

  /** The last hand's verdict, for the table (null before any fair hand has ended). */
  element(): HTMLElement | null {
    const last = this.checks.at(-1);
    if (!last) return null;
    const ok = last.problems.length === 0;
    return el("p", { id: "deal-check", class: ok ? "deal-ok" : "deal-bad", "data-ok": String(ok), "data-hand": String(last.hand) },
      ok ? "✓ 发牌已验证 · " : "✗ 发牌不符 · ", verdict(last));
  }
}
