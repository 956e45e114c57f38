// A retry may take over an Idempotency-Key record left "running", but the attempt it took over
// can no longer store an answer: its work's transaction fails, so the work is not done twice.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../daemon/store/db.js";
import { migrate } from "../../daemon/store/migrate.js";
import { beginIdempotent, finishIdempotent, requestHash } from "../../facade/idempotency.js";

describe("Idempotency-Key takeover", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDb({ dataDir: "", memory: true });
    await migrate(db);
  });
  afterAll(() => db?.close());

  it("lets only the attempt holding the record store its answer", async () => {
    const scope = { accountId: randomUUID(), livemode: true };
    const hash = requestHash("POST", "/api/v1/episodes", {});
    const first = await beginIdempotent(db, scope, "k1", hash);
    if (!("fresh" in first)) throw new Error("expected a fresh start");
    await expect(beginIdempotent(db, scope, "k1", hash)).rejects.toMatchObject({ status: 409 });
    await db.query(`update idempotency set created_at = now() - interval '1 hour' where key = 'k1'`);
    const second = await beginIdempotent(db, scope, "k1", hash);
    if (!("fresh" in second)) throw new Error("expected a takeover");
    expect(second.attempt).not.toBe(first.attempt);

    // The slow first attempt's work and answer roll back together.
    await db.query(`create table if not exists t_work (n int)`);
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`insert into t_work values (1)`);
        await finishIdempotent(tx, scope, "k1", first.attempt, 202, { from: "first" }, { inWork: true });
      }),
    ).rejects.toMatchObject({ status: 409, code: "idempotency_in_progress" });
    expect((await db.query(`select count(*)::int as n from t_work`)).rows[0].n).toBe(0);

    await db.transaction(async (tx) => {
      await tx.query(`insert into t_work values (2)`);
      await finishIdempotent(tx, scope, "k1", second.attempt, 202, { from: "second" }, { inWork: true });
    });
    // The replay carries the answer's exact bytes too (issue 27: a replay is byte for byte).
    expect(await beginIdempotent(db, scope, "k1", hash)).toEqual({
      replay: { status: 202, body: { from: "second" }, text: '{"from":"second"}' },
    });
  });
});
