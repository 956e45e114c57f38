/**
 * Webhooks: add an address for chosen events (its signing secret shown once), and for each
 * address its last 10 deliveries, a test event with its result at once, switching a switched-off
 * address on again, and removal. These are the API's own webhook operations, under /web.
 */
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { call } from "../api";
import { WEBHOOK_EVENTS, type TestResult, type Webhook } from "../types";
import { ErrorText, Field, handler, Notice, SecretBox, useAction, useTitle } from "../ui";
import { Deliveries } from "./deliveries";

export default function WebhooksPage() {
  useTitle("Webhooks");
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const list = useAction();
  const load = useCallback(
    () => list.run(async () => setHooks((await call<{ webhooks: Webhook[] }>("GET", "/webhooks")).webhooks)),
    [list.run],
  );
  useEffect(() => void load(), [load]);
  return (
    <>
      <h1>Webhooks</h1>
      <p className="lead">
        clipd posts a signed event to your addresses when episodes, clips and transcripts finish or fail. An address
        that keeps failing for 3 days is switched off.
      </p>
      {secret ? (
        <SecretBox title={`Signing secret for ${secret.url}`} value={secret.secret} onDone={() => setSecret(null)} />
      ) : (
        <AddWebhook onAdded={(w) => (setSecret({ url: w.url, secret: w.secret ?? "" }), void load())} />
      )}
      <section aria-labelledby="hooks-h">
        <h2 id="hooks-h">Your addresses</h2>
        <ErrorText error={list.error} />
        {hooks === null ? (
          <p className="loading">Loading addresses…</p>
        ) : hooks.length === 0 ? (
          <p>No addresses yet.</p>
        ) : (
          hooks.map((w) => <WebhookCard key={w.id} hook={w} onChange={handler(load)} />)
        )}
      </section>
    </>
  );
}

function AddWebhook({ onAdded }: { onAdded: (w: Webhook) => void }) {
  const { busy, error, run } = useAction();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const events = WEBHOOK_EVENTS.filter((ev) => form.get(`event-${ev}`) === "on");
    const url = String(form.get("url") ?? "").trim();
    const w = await run(() => call<Webhook>("POST", "/webhooks", { url, ...(events.length ? { events } : {}) }));
    if (w) onAdded(w);
  }
  return (
    <section aria-labelledby="add-hook-h" className="card">
      <h2 id="add-hook-h">Add an address</h2>
      <form onSubmit={handler(submit)} className="stack">
        <Field
          label="Address (URL)"
          name="url"
          type="url"
          required
          maxLength={2000}
          placeholder="https://example.com/clipd-events"
          autoComplete="off"
        />
        <fieldset>
          <legend>Events</legend>
          <p className="hint">Leave all unticked to receive every event.</p>
          <div className="choices">
            {WEBHOOK_EVENTS.map((ev) => (
              <label className="choice" key={ev}>
                <input type="checkbox" name={`event-${ev}`} /> {ev}
              </label>
            ))}
          </div>
        </fieldset>
        <ErrorText error={error} />
        <div>
          <button type="submit" disabled={busy}>
            Add address
          </button>
        </div>
      </form>
    </section>
  );
}

function WebhookCard({ hook, onChange }: { hook: Webhook; onChange: () => void }) {
  const { busy, error, run } = useAction();
  const [tested, setTested] = useState<string | null>(null);
  const [testOk, setTestOk] = useState(false);
  const path = `/webhooks/${encodeURIComponent(hook.id)}`;

  async function sendTest() {
    setTested(null);
    const r = await run(() => call<TestResult>("POST", `${path}/test`, { event: hook.events[0] ?? "episode.ready" }));
    if (!r) return;
    setTestOk(r.delivered);
    setTested(
      r.delivered
        ? `Test event ${r.event} delivered: the address answered ${r.status}.`
        : `Test event ${r.event} not delivered: ` +
            `${r.status !== null ? `the address answered ${r.status}` : (r.error ?? "no answer")}.`,
    );
    onChange();
  }
  async function switchOn() {
    if (await run(async () => (await call("PATCH", path, { enabled: true }), true))) onChange();
  }
  async function remove() {
    if (!window.confirm(`Remove ${hook.url}? Its pending deliveries stop.`)) return;
    if (await run(async () => (await call("DELETE", path), true))) onChange();
  }
  return (
    <article className="card hook" aria-label={hook.url}>
      <div className="hook-head">
        <h3 className="hook-url">{hook.url}</h3>
        {hook.enabled ? (
          <span className="badge badge-ok">On</span>
        ) : (
          <span className="badge badge-off">Switched off</span>
        )}
      </div>
      <p className="hint">Events: {hook.events.join(", ")}</p>
      {!hook.enabled && (
        <Notice kind="warn">
          This address is switched off{hook.disabled_reason ? `: ${hook.disabled_reason}` : ""}. No events are sent to
          it until it is switched on again.
        </Notice>
      )}
      <div className="actions">
        <button type="button" disabled={busy} onClick={handler(sendTest)}>
          Send test event
        </button>
        {!hook.enabled && (
          <button type="button" disabled={busy} onClick={handler(switchOn)}>
            Switch on again
          </button>
        )}
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={handler(remove)}
          aria-label={`Remove ${hook.url}`}
        >
          Remove
        </button>
      </div>
      <div aria-live="polite">{tested && <Notice kind={testOk ? "ok" : "warn"}>{tested}</Notice>}</div>
      <ErrorText error={error} />
      <Deliveries list={hook.recent_deliveries ?? []} />
    </article>
  );
}
