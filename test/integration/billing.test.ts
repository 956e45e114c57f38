// Billing against a real database: the plan allowance is used first, episodes are priced by length,
// refusals write nothing, and concurrent charges never spend the same allowance twice.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AccountService } from "../../daemon/account/accounts.js";
import { BillingService, loadPricing, type PriceTable } from "../../daemon/account/billing.js";
import { PaymentRequired } from "../../daemon/domain/errors.js";
import { openDb, type Db } from "../../daemon/store/db.js";
import { migrate } from "../../daemon/store/migrate.js";
import { backendEnv, testBackends } from "../helpers/backends.js";

describe.each(testBackends())("billing on %s", (backend) => {
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  async function open(prices?: PriceTable) {
    const d = await backendEnv(backend);
    db = await openDb({ databaseUrl: d.databaseUrl, dataDir: d.dataDir });
    await migrate(db);
    const accounts = new AccountService(db);
    return { db, accounts, billing: new BillingService(accounts, { prices }) };
  }
  const ledger = async (db: Db, id: string) =>
    (await db.query(`select kind, cents from ledger where account_id = $1 order by created_at, id`, [id])).rows.map(
      (r: any) => [r.kind, Number(r.cents)],
    );
  const creditOf = async (db: Db, id: string) =>
    Number((await db.query(`select credit_cents from accounts where id = $1`, [id])).rows[0].credit_cents);
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeInstanceOf(PaymentRequired);
    return { code: err.code, ...err.context };
  };

  it("reads the price table and prices an episode per started minute, with a minimum", () => {
    const p = loadPricing(path.join(process.cwd(), "config", "pricing.yaml"));
    expect(p).toMatchObject({
      plan: { api_episodes_per_month: 5 },
      exports: { included_per_episode: 5, cents_each: 25 },
      pay_as_you_go: { enabled: true },
    });
    const b = new BillingService({} as AccountService, { prices: p });
    expect(b.episodeCents(11)).toBe(25);
    expect(b.episodeCents(60)).toBe(25);
    expect(b.episodeCents(3600)).toBe(300);
    expect(b.episodeCents(3601)).toBe(305);
  });

  it("uses the plan's 5 episodes a month first, then credit, down below zero", async () => {
    const { db, accounts, billing } = await open();
    const a = await accounts.createAccount({ email: "plan@example.com", plan: true, creditCents: 100 });
    for (let i = 0; i < 5; i++) {
      await db.transaction((tx) => billing.assertCanStartEpisode(tx, a.id));
      expect(await db.transaction((tx) => billing.chargeEpisode(tx, a.id, `e${i}`, 600))).toEqual({
        cents: 0,
        from: "plan",
      });
    }
    expect(await billing.usage(db, a.id)).toMatchObject({ plan_episodes_used: 5, plan_episodes_included: 5 });
    await db.transaction((tx) => billing.assertCanStartEpisode(tx, a.id)); // 100 cents of credit left
    expect(await db.transaction((tx) => billing.chargeEpisode(tx, a.id, "e5", 1800))).toEqual({
      cents: 150,
      from: "credit",
    });
    expect(await creditOf(db, a.id)).toBe(-50);
    expect(await refusal(db.transaction((tx) => billing.assertCanStartEpisode(tx, a.id)))).toMatchObject({
      code: "balance_below_zero",
      needed_cents: 50,
      credit_cents: -50,
    });
    expect(await refusal(db.transaction((tx) => billing.chargeExport(tx, a.id, "j1", 1)))).toMatchObject({
      code: "balance_below_zero",
    });
    expect((await ledger(db, a.id)).map(([k]) => k)).toEqual(["credit", ...Array(5).fill("episode_plan"), "episode"]);
  });

  it("refuses with the right code and writes nothing", async () => {
    const { db, accounts, billing } = await open();
    const none = await accounts.createAccount({ email: "none@example.com" });
    expect(await refusal(db.transaction((tx) => billing.assertCanStartEpisode(tx, none.id)))).toMatchObject({
      code: "plan_or_credit_required",
      needed_cents: 25,
      credit_cents: 0,
    });
    const some = await accounts.createAccount({ email: "some@example.com", creditCents: 10 });
    expect(await refusal(db.transaction((tx) => billing.assertCanStartEpisode(tx, some.id)))).toMatchObject({
      code: "plan_or_credit_required",
      needed_cents: 15,
      credit_cents: 10,
    });
    // Exports: the first five are free; the sixth needs 25 cents of credit.
    expect(await db.transaction((tx) => billing.chargeExport(tx, some.id, "j5", 5))).toBe(0);
    expect(await refusal(db.transaction((tx) => billing.chargeExport(tx, some.id, "j6", 6)))).toMatchObject({
      code: "credit_required",
      needed_cents: 15,
      credit_cents: 10,
    });
    expect(await ledger(db, some.id)).toEqual([["credit", 10]]);
    await accounts.addCredit(some.id, 40);
    expect(await db.transaction((tx) => billing.chargeExport(tx, some.id, "j6", 6))).toBe(25);
    expect(await creditOf(db, some.id)).toBe(25);
  });

  it("answers plan_required when pay-as-you-go is switched off", async () => {
    const prices = { ...loadPricing(), pay_as_you_go: { enabled: false } };
    const { db, accounts, billing } = await open(prices);
    const a = await accounts.createAccount({ email: "rich@example.com", creditCents: 10_000 });
    expect(await refusal(db.transaction((tx) => billing.assertCanStartEpisode(tx, a.id)))).toMatchObject({
      code: "plan_required",
      credit_cents: 10_000,
    });
  });

  it("never spends the same plan episode twice under concurrent charges", async () => {
    const { db, accounts, billing } = await open();
    const a = await accounts.createAccount({ email: "race@example.com", plan: true, creditCents: 1000 });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => db.transaction((tx) => billing.chargeEpisode(tx, a.id, `e${i}`, 60))),
    );
    expect(results.filter((r) => r.from === "plan")).toHaveLength(5);
    expect(results.filter((r) => r.from === "credit")).toHaveLength(3);
    expect(await creditOf(db, a.id)).toBe(1000 - 3 * 25);
  });
});
