/** The board of live worker processes, refreshed every few seconds by each process that works steps. */
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Db } from "../store/db.js";

export interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  roles: string;
  concurrency: number;
  active: number;
  started_at: string;
  seen_at: string;
}

export class WorkerBoard {
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer?: NodeJS.Timeout;
  constructor(private readonly db: Db) {}

  async join(roles: string[], concurrency: number, active: () => number, everyMs = 5000): Promise<void> {
    const beat = () =>
      this.db.query(
        `insert into workers (id, host, pid, roles, concurrency, active) values ($1, $2, $3, $4, $5, $6)
         on conflict (id) do update set active = excluded.active, seen_at = now()`,
        [this.id, os.hostname(), process.pid, roles.join(","), concurrency, active()],
      );
    // Rows of processes gone for a day are cleared by a joining worker, not by every health check.
    await this.db.query(`delete from workers where seen_at < now() - interval '1 day'`);
    await beat();
    this.timer = setInterval(() => void beat().catch(() => {}), everyMs);
    this.timer.unref();
  }

  async leave(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.db.query(`delete from workers where id = $1`, [this.id]).catch(() => {});
  }

  async live(withinSeconds = 30): Promise<WorkerRow[]> {
    const { rows } = await this.db.query<WorkerRow>(
      `select * from workers where seen_at > now() - make_interval(secs => $1) order by started_at`,
      [withinSeconds],
    );
    return rows;
  }
}
