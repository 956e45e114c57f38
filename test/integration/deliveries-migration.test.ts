// Migration 013 moves webhook deliveries, their attempts and free callbacks into the one courier's
// tables (deliveries, delivery_attempts) with every row and id kept, so the API's delivery log and
// any retry pending at the upgrade carry on. The database is brought to 012 by hand, filled the way
// the old code filled it, then migrated.
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../daemon/store/db.js";
import { migrate, migrationsDir } from "../../daemon/store/migrate.js";
import { freshPgDatabase, testBackends } from "../helpers/backends.js";

/** Applies the migrations before `upTo` the way migrate.ts does, and records them as applied. */
async function migrateBefore(db: Db, upTo: string): Promise<void> {
  await db.query(
    `create table if not exists clipd_migrations (id text primary key, applied_at timestamptz not null default now())`,
  );
  const files = (await readdir(migrationsDir())).filter((f) => /^\d{3}_.+\.sql$/.test(f) && f < upTo).sort();
  for (const file of files) {
    const sql = await readFile(path.join(migrationsDir(), file), "utf8");
    await db.transaction(async (tx) => {
      for (const stmt of sql
        .split(/;\s*$/m)
        .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
        .filter(Boolean))
        await tx.query(stmt);
      await tx.query(`insert into clipd_migrations (id) values ($1)`, [file]);
    });
  }
}

describe.each(testBackends())("migration 013 (one courier) on %s", (backend) => {
  let db: Db | undefined;
  afterEach(async () => db?.close());

  it("moves deliveries and attempts of both kinds, ids and states kept", async () => {
    db =
      backend === "postgres"
        ? await openDb({ databaseUrl: await freshPgDatabase(), dataDir: "" })
        : await openDb({ dataDir: "", memory: true });
    await migrateBefore(db, "013_");
    const [account, event, hook, job] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const [delivered, pending, test, cbDone, cbPending] = [
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
    ];
    await db.query(`insert into accounts (id, email) values ($1, 'm@example.com')`, [account]);
    await db.query(`insert into events (id, type, account_id, livemode) values ($1, 'transcript.ready', $2, true)`, [
      event,
      account,
    ]);
    await db.query(
      `insert into webhooks (id, account_id, url, events, secrets) values ($1, ` +
        `$2, 'https://hooks.example.com/x', '["transcript.ready"]', '[]')`,
      [hook, account],
    );
    await db.query(
      `insert into webhook_deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, last_error, finished_at, created_at) values
         ($1, $3, $4, 'transcript.ready', '{"a":1}', 'delivered', 2, null, now(), now() - interval '2 hours'),
         ($2, $3, null, 'transcript.failed', '{"t":1}', 'failed', 1, 'the address answered 500', now(), now() - interval '1 hour')`,
      [delivered, test, hook, event],
    );
    await db.query(
      `insert into webhook_deliveries (id, webhook_id, event_id, event_type, ` +
        `payload, attempts, next_attempt_at, last_error) values ($1, $2, null, ` +
        `'episode.ready', '{"p":1}', 1, now() + interval '5 minutes', 'no answer ` +
        `within 3000 ms')`,
      [pending, hook],
    );
    await db.query(
      `insert into webhook_attempts (delivery_id, attempt, status_code, latency_ms, response, error) values
         ($1, 1, 500, 12, 'oops', 'the address answered 500'), ($1, 2, 200, 9, 'ok', null), ($2, 1, null, 3000, null, 'no answer within 3000 ms'), ($3, 1, 500, 5, '', 'the address answered 500')`,
      [delivered, pending, test],
    );
    await db.query(
      `insert into free_jobs (id, token_fp, client_addr, url, callback_url, callback_secret, ` +
        `measured) values ($1, 'fp', '127.0.0.1', 'https://media.example.com/a.mp3', ` +
        `'https://cb.example.com/', 'whsec_x', true)`,
      [job],
    );
    await db.query(
      `insert into free_callbacks (id, job_id, url, payload, status, attempts, last_error, finished_at) values
         ($1, $3, 'https://cb.example.com/', '{"c":1}', 'delivered', 1, null, now()), ($2, $3, 'https://cb.example.com/', '{"c":2}', 'pending', 2, 'the address answered 503', null)`,
      [cbDone, cbPending, job],
    );

    // 013 first; later migrations (014 on) run after it.
    expect((await migrate(db))[0]).toBe("013_deliveries.sql");

    const rows = (
      await db.query(
        `select id, kind, webhook_id, event_id, job_id, url, payload, status, attempts, ` +
          `last_error, next_attempt_at is not null as waits from deliveries order by payload`,
      )
    ).rows;
    expect(rows).toEqual([
      {
        id: delivered,
        kind: "webhook",
        webhook_id: hook,
        event_id: event,
        job_id: null,
        url: null,
        payload: '{"a":1}',
        status: "delivered",
        attempts: 2,
        last_error: null,
        waits: false,
      },
      {
        id: cbDone,
        kind: "free_callback",
        webhook_id: null,
        event_id: null,
        job_id: job,
        url: "https://cb.example.com/",
        payload: '{"c":1}',
        status: "delivered",
        attempts: 1,
        last_error: null,
        waits: false,
      },
      {
        id: cbPending,
        kind: "free_callback",
        webhook_id: null,
        event_id: null,
        job_id: job,
        url: "https://cb.example.com/",
        payload: '{"c":2}',
        status: "pending",
        attempts: 2,
        last_error: "the address answered 503",
        waits: false,
      },
      {
        id: pending,
        kind: "webhook",
        webhook_id: hook,
        event_id: null,
        job_id: null,
        url: null,
        payload: '{"p":1}',
        status: "pending",
        attempts: 1,
        last_error: "no answer within 3000 ms",
        waits: true,
      },
      {
        id: test,
        kind: "webhook",
        webhook_id: hook,
        event_id: null,
        job_id: null,
        url: null,
        payload: '{"t":1}',
        status: "failed",
        attempts: 1,
        last_error: "the address answered 500",
        waits: false,
      },
    ]);
    const attempts = (
      await db.query(
        `select delivery_id, attempt, status_code, latency_ms, response, error ` +
          `from delivery_attempts order by latency_ms`,
      )
    ).rows;
    expect(attempts).toEqual([
      {
        delivery_id: test,
        attempt: 1,
        status_code: 500,
        latency_ms: 5,
        response: "",
        error: "the address answered 500",
      },
      { delivery_id: delivered, attempt: 2, status_code: 200, latency_ms: 9, response: "ok", error: null },
      {
        delivery_id: delivered,
        attempt: 1,
        status_code: 500,
        latency_ms: 12,
        response: "oops",
        error: "the address answered 500",
      },
      {
        delivery_id: pending,
        attempt: 1,
        status_code: null,
        latency_ms: 3000,
        response: null,
        error: "no answer within 3000 ms",
      },
    ]);
    // The old tables are gone; the one-per-address-and-event rule moved with the rows.
    const left = await db.query(
      `select table_name from information_schema.tables where table_name in ('webhook_deliveries', ` +
        `'webhook_attempts', 'free_callbacks')`,
    );
    expect(left.rows).toEqual([]);
    await expect(
      db.query(
        `insert into deliveries (id, kind, webhook_id, event_id, event_type, payload) ` +
          `values ($1, 'webhook', $2, $3, 'transcript.ready', '{}')`,
        [randomUUID(), hook, event],
      ),
    ).rejects.toThrow();
  });
});
