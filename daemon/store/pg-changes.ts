/**
 * `Db.writes` on PostgreSQL: a count that moves whenever what the API's kept reads show may have
 * changed, in this process or any other. Two sources feed it:
 * - this process's own writes, counted when each statement or transaction has ended (so a client's
 *   write and its next read on the same process never see an old copy);
 * - the notices every other writer's commits send on `clipd_changed` (migration 022's triggers on
 *   episodes, clips and runs), heard on a LISTEN session of its own.
 *
 * While that session is not up (not yet opened, lost, or failing to open) there is no count at
 * all, and facade/read-cache.ts keeps nothing: a missed notice would otherwise leave a stale copy.
 * The session is opened on first use, so CLI commands that never serve reads never open it.
 */
export const CHANGE_CHANNEL = "clipd_changed";
/** After a failed open, how long callers go without a count before the next try. */
const RETRY_MS = 5_000;

/** What the LISTEN session tells: a lost session (down), and its return (gap: notices were missed). */
interface ListenOpts {
  onGap?: () => void;
  onDown?: () => void;
}

export class PgChanges {
  private count = 0;
  private state: "closed" | "opening" | "up" | "down" | "stopped" = "closed";
  private retryAt = 0;
  private off?: () => Promise<void>;
  private readonly movers = new Set<() => void>();

  constructor(
    private readonly listen: (
      channel: string,
      onPayload: (p: string) => void,
      opts: ListenOpts,
    ) => Promise<() => Promise<void>>,
  ) {}

  /** One of this process's writes has ended. */
  wrote(): void {
    this.bump();
  }

  /** Calls `fn` whenever the count moves; returns the unsubscribe function. */
  onMove(fn: () => void): () => void {
    this.movers.add(fn);
    return () => void this.movers.delete(fn);
  }

  private bump(): void {
    this.count++;
    for (const fn of this.movers) fn();
  }

  /** The count, or undefined while notices from other processes cannot be heard. */
  current(): number | undefined {
    if (this.state === "up") return this.count;
    if (this.state === "closed" && Date.now() >= this.retryAt) this.open();
    return undefined;
  }

  private open(): void {
    this.state = "opening";
    this.listen(CHANGE_CHANNEL, () => this.bump(), {
      // Lost: notices may be missed until the session is back; then everything kept is dropped.
      onDown: () => void (this.state !== "stopped" && (this.state = "down")),
      onGap: () => {
        if (this.state !== "stopped") this.state = "up";
        this.bump();
      },
    }).then(
      (off) => {
        this.off = off;
        if (this.state === "stopped") return void off().catch(() => {});
        this.state = "up";
        this.bump();
      },
      () => {
        if (this.state === "stopped") return;
        this.state = "closed";
        this.retryAt = Date.now() + RETRY_MS;
      },
    );
  }

  async close(): Promise<void> {
    this.state = "stopped";
    await this.off?.().catch(() => {});
  }
}
