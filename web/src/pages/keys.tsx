/**
 * Keys: make a key (shown once), list them, revoke one. The limit of 5 is the server's to enforce.
 * Below them, the apps connected through OAuth (keys-apps.tsx).
 */
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { call } from "../api";
import { SCOPES, type ApiKey, type CreatedKey } from "../types";
import { ErrorText, Field, handler, Notice, SecretBox, useAction, useTitle, when } from "../ui";
import { ConnectedApps } from "./keys-apps";

const EXPIRY = [
  { value: "", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
];

const STATUS: Record<ApiKey["status"], string> = { active: "Active", revoked: "Revoked", expired: "Expired" };
const nameOf = (k: ApiKey) => k.name ?? "(unnamed)";

export default function KeysPage() {
  useTitle("API keys");
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [max, setMax] = useState(5);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const list = useAction();
  const load = useCallback(
    () =>
      list.run(async () => {
        const r = await call<{ keys: ApiKey[]; max_keys: number }>("GET", "/keys");
        setKeys(r.keys);
        setMax(r.max_keys);
      }),
    [list.run],
  );
  const active = keys?.filter((k) => k.status === "active").length ?? 0;
  useEffect(() => void load(), [load]);

  return (
    <>
      <h1>API keys</h1>
      <p className="lead">
        A key lets a program call the clipd API as your account. Send it in the header{" "}
        <code>Authorization: Bearer &lt;key&gt;</code>. Test keys run against sample data and cost nothing.
      </p>
      {created ? (
        <SecretBox title={`Your new key “${nameOf(created)}”`} value={created.key} onDone={() => setCreated(null)} />
      ) : (
        <CreateKey full={active >= max} max={max} onCreated={(k) => (setCreated(k), void load())} />
      )}
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">Your keys</h2>
        {keys && (
          <p className="hint">
            {active} of {max} active keys.
          </p>
        )}
        <ErrorText error={list.error} />
        {keys === null ? <p className="loading">Loading keys…</p> : <KeyTable keys={keys} onChange={handler(load)} />}
      </section>
      <ConnectedApps />
    </>
  );
}

function CreateKey({ full, max, onCreated }: { full: boolean; max: number; onCreated: (k: CreatedKey) => void }) {
  const { busy, error, run } = useAction();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const scopes = SCOPES.filter((s) => form.get(`scope-${s}`) === "on");
    const days = String(form.get("expiry") ?? "");
    const body = {
      name: String(form.get("name") ?? "").trim(),
      mode: form.get("mode") === "test" ? "test" : "live",
      scopes,
      expires_in_days: days ? Number(days) : null,
    };
    const k = await run(() => call<CreatedKey>("POST", "/keys", body));
    if (k) onCreated(k);
  }
  return (
    <section aria-labelledby="new-key-h" className="card">
      <h2 id="new-key-h">New key</h2>
      <form onSubmit={handler(submit)} className="stack">
        <Field
          label="Name"
          name="name"
          required
          maxLength={80}
          placeholder="e.g. Production server"
          autoComplete="off"
        />
        <div className="row-fields">
          <fieldset>
            <legend>Mode</legend>
            <label className="choice">
              <input type="radio" name="mode" value="live" defaultChecked /> Live
            </label>
            <label className="choice">
              <input type="radio" name="mode" value="test" /> Test
            </label>
          </fieldset>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((s) => (
              <label className="choice" key={s}>
                <input type="checkbox" name={`scope-${s}`} defaultChecked={s === "clips.read"} /> {s}
              </label>
            ))}
          </fieldset>
          <div className="field">
            <label htmlFor="key-expiry">Expires</label>
            <select id="key-expiry" name="expiry" defaultValue="">
              {EXPIRY.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        {full && (
          <Notice kind="warn">
            You have {max} active keys, the most an account may have. Revoke one you no longer use to make another.
          </Notice>
        )}
        <ErrorText error={error} />
        <div>
          <button type="submit" disabled={busy}>
            Create key
          </button>
        </div>
      </form>
    </section>
  );
}

function KeyTable({ keys, onChange }: { keys: ApiKey[]; onChange: () => void }) {
  const { busy, error, run } = useAction();
  async function revoke(k: ApiKey) {
    if (!window.confirm(`Revoke the key “${nameOf(k)}” (${k.prefix}…)? Programs using it stop working at once.`))
      return;
    if (await run(async () => (await call("DELETE", `/keys/${encodeURIComponent(k.id)}`), true))) onChange();
  }
  if (!keys.length) return <p>No keys yet. Create one above.</p>;
  return (
    <>
      <ErrorText error={error} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Keys table">
        <table className="cards-sm">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Mode</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => {
              return (
                <tr key={k.id}>
                  <td data-label="Name">{nameOf(k)}</td>
                  <td data-label="Prefix">
                    <code>{k.prefix}…</code>
                  </td>
                  <td data-label="Scopes">{k.scopes.join(", ")}</td>
                  <td data-label="Mode">
                    <span className={`badge badge-${k.mode}`}>{k.mode}</span>
                  </td>
                  <td data-label="Last used">{when(k.last_used_at, "Never")}</td>
                  <td data-label="Expires">{when(k.expires_at, "Never")}</td>
                  <td data-label="Status">
                    <span className={`status status-${k.status}`}>{STATUS[k.status] ?? k.status}</span>
                  </td>
                  <td className="cell-action">
                    {k.status === "active" && (
                      <button
                        type="button"
                        className="danger small"
                        disabled={busy}
                        onClick={handler(() => revoke(k))}
                        aria-label={`Revoke ${nameOf(k)}`}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
