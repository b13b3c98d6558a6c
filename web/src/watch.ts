// A seat's Watch stream that never gives up: a dropped stream (Envoy or a node restarted, the
// network gone) resumes from the last update's version, so nothing is missed or repeated.
import { Code, ConnectError } from "@connectrpc/connect";
import type { TableUpdate } from "../gen/qipai/v1/game_pb";
import { game } from "./api";

// Errors a retry cannot cure: the caller is told instead.
const FINAL = new Set([Code.Unauthenticated, Code.PermissionDenied, Code.NotFound, Code.InvalidArgument]);

export class Feed {
  private abort = new AbortController();

  constructor(
    private tableId: string,
    public version: bigint,
    private onUpdate: (u: TableUpdate) => void,
    private onState: (live: boolean, error?: string) => void,
  ) {}

  async run(): Promise<void> {
    let failures = 0;
    while (!this.abort.signal.aborted) {
      try {
        const stream = game.watch(
          { tableId: this.tableId, fromVersion: this.version, withViews: true },
          { signal: this.abort.signal },
        );
        this.onState(true);
        for await (const update of stream) {
          this.version = update.version;
          failures = 0;
          this.onUpdate(update);
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        const e = ConnectError.from(err);
        if (FINAL.has(e.code)) {
          this.onState(false, e.rawMessage);
          return;
        }
      }
      this.onState(false);
      failures += 1;
      const wait = Math.min(200 * 2 ** failures, 5000) * (0.5 + Math.random());
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  stop(): void {
    this.abort.abort();
  }
}
