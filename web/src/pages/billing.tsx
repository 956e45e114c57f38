/**
 * Billing: the balance, the plan and its included API episodes, this month's use by operation, the
 * ledger, and buying credit (Stripe Checkout, or the operator's instructions with the manual
 * provider). Every number comes from GET /web/api/v1/billing; nothing is computed here.
 */
import { useCallback, useEffect, useState } from "react";
import { call } from "../api";
import { useLocation } from "../router";
import { ErrorText, handler, money, Notice, useAction, useTitle, when } from "../ui";

interface Billing {
  balance: { credit_cents: number; below_zero: boolean };
  plan: { on: boolean; cents_per_month: number; api_episodes_per_month: number; api_episodes_used: number };
  month: string;
  use: Array<{ operation: string; count: number; cents: number }>;
  ledger: Array<{ id: string; at: string; kind: string; cents: number; note: string | null }>;
  provider: {
    name: "manual" | "stripe";
    packs_cents: number[];
    plan_cents_per_month: number;
    plan_checkout: boolean;
    instruction?: string;
  };
}

const KIND_LABELS: Record<string, string> = {
  credit: "Credit added",
  pack: "Credit pack bought",
  pack_refund: "Credit pack refunded",
  episode: "Episode",
  episode_plan: "Episode (plan)",
  export: "Export",
  export_refund: "Export refunded",
  transcript: "Transcript",
  plan_on: "Plan started",
  plan_off: "Plan ended",
};

export default function BillingPage() {
  useTitle("Billing");
  const [b, setB] = useState<Billing | null>(null);
  const load = useAction();
  const refresh = useCallback(() => load.run(async () => setB(await call<Billing>("GET", "/billing"))), [load.run]);
  useEffect(() => void refresh(), [refresh]);
  const checkout = useLocation().query.get("checkout"); // Stripe sends the buyer back with it
  return (
    <>
      <h1>Billing</h1>
      {checkout === "success" && (
        <Notice kind="ok">
          Payment made. The credit shows here once Stripe confirms it, usually within a minute.{" "}
          <button type="button" className="link-button" onClick={() => void refresh()} disabled={load.busy}>
            Refresh
          </button>
        </Notice>
      )}
      {checkout === "cancelled" && <Notice>Checkout cancelled: nothing was charged.</Notice>}
      <ErrorText error={load.error} />
      {!b ? (
        !load.error && <p className="loading">Loading billing…</p>
      ) : (
        <>
          <div className="tiles">
            <section className="card tile" aria-labelledby="bal-h">
              <h2 id="bal-h">Balance</h2>
              <p className={`big ${b.balance.below_zero ? "negative" : ""}`}>{money(b.balance.credit_cents)}</p>
              {b.balance.below_zero && (
                <Notice kind="warn">
                  Your balance is below zero: live API calls that cost money are refused until you add credit.
                </Notice>
              )}
            </section>
            <section className="card tile" aria-labelledby="plan-h">
              <h2 id="plan-h">Plan</h2>
              {b.plan.on ? (
                <>
                  <p className="big">API plan</p>
                  <p>
                    {b.plan.api_episodes_used} of {b.plan.api_episodes_per_month} API episodes used this month
                  </p>
                  <Meter used={b.plan.api_episodes_used} of={b.plan.api_episodes_per_month} />
                </>
              ) : (
                <>
                  <p className="big">Pay as you go</p>
                  <p>
                    Every call is paid from credit. The plan ({money(b.plan.cents_per_month)} a month) includes{" "}
                    {b.plan.api_episodes_per_month} API episodes a month.
                  </p>
                </>
              )}
            </section>
          </div>
          <BuyCredit billing={b} />
          <section aria-labelledby="use-h">
            <h2 id="use-h">This month’s use ({b.month})</h2>
            {b.use.length ? (
              <Table
                head={["Operation", "Count", "Cost"]}
                rows={b.use.map((u) => [u.operation, String(u.count), money(u.cents)])}
                label="Use by operation"
              />
            ) : (
              <p>Nothing used yet this month.</p>
            )}
          </section>
          <section aria-labelledby="ledger-h">
            <h2 id="ledger-h">Ledger</h2>
            {b.ledger.length ? (
              <Table
                head={["When", "What", "Note", "Amount"]}
                rows={b.ledger.map((l) => [when(l.at), KIND_LABELS[l.kind] ?? l.kind, noteOf(l), money(l.cents)])}
                label="Ledger entries"
                numeric={3}
              />
            ) : (
              <p>No entries yet.</p>
            )}
          </section>
        </>
      )}
    </>
  );
}

function Meter({ used, of }: { used: number; of: number }) {
  return (
    <progress
      className="meter"
      max={Math.max(of, 1)}
      value={Math.min(used, of)}
      aria-label="API episodes used this month"
    />
  );
}

function BuyCredit({ billing }: { billing: Billing }) {
  const { busy, error, run } = useAction();
  async function checkout(body: { pack_cents: number } | { plan: true }) {
    const r = await run(() => call<{ checkout_url: string }>("POST", "/billing/checkout", body));
    if (r?.checkout_url) window.location.assign(r.checkout_url);
  }
  const p = billing.provider;
  return (
    <section aria-labelledby="buy-h" className="card">
      <h2 id="buy-h">Buy credit</h2>
      {p.name === "manual" ? (
        <Notice>
          <WithCode
            text={
              p.instruction ??
              "This clipd takes no payments online. Ask its operator to add credit to " +
                "your account with `clipd credit add`."
            }
          />
        </Notice>
      ) : (
        <>
          <p>Credit packs are paid with Stripe Checkout; the credit is added as soon as the payment clears.</p>
          <div className="packs">
            {p.packs_cents.map((c) => (
              <button type="button" key={c} disabled={busy} onClick={handler(() => checkout({ pack_cents: c }))}>
                Buy {money(c)}
              </button>
            ))}
            {!billing.plan.on && p.plan_checkout && (
              <button
                type="button"
                className="secondary"
                disabled={busy}
                onClick={handler(() => checkout({ plan: true }))}
              >
                Start the plan ({money(p.plan_cents_per_month)}/month)
              </button>
            )}
          </div>
        </>
      )}
      <ErrorText error={error} />
    </section>
  );
}

function Table({ head, rows, label, numeric }: { head: string[]; rows: string[][]; label: string; numeric?: number }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className="cards-sm">
        <thead>
          <tr>
            {head.map((h, i) => (
              <th scope="col" key={h} className={i === (numeric ?? head.length - 1) ? "num" : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((c, j) => (
                <td key={j} data-label={head[j]} className={j === (numeric ?? head.length - 1) ? "num" : undefined}>
                  {c}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Text whose `backticked` parts are commands, shown as code. */
function WithCode({ text }: { text: string }) {
  return <>{text.split("`").map((part, i) => (i % 2 ? <code key={i}>{part}</code> : part))}</>;
}

/** A ledger note, left out where it only repeats what the row's kind says ("credit added"). */
function noteOf(l: { kind: string; note: string | null }): string {
  const label = (KIND_LABELS[l.kind] ?? l.kind).toLowerCase();
  return !l.note || l.note.toLowerCase() === label ? "" : l.note;
}
