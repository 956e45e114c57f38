/**
 * Account: the e-mail and whether it is verified, the billing-review notice, the saved clip
 * defaults, changing the password, signing out (here or everywhere) and deleting the account.
 */
import { useEffect, useState, type FormEvent } from "react";
import { call } from "../api";
import { navigate } from "../router";
import { useSession } from "../session";
import { describeLook } from "../studio/look";
import type { AccountSummary, CaptionStyle, ClipLook } from "../types";
import { ErrorText, Field, handler, Notice, useAction, useTitle, when } from "../ui";

interface AccountAnswer {
  account: AccountSummary;
  clip_defaults: Record<string, unknown>;
}

/** The saved defaults in the words the cut panel uses (no field names), with the brand kit. */
function defaultLines(d: Record<string, unknown>, styles: CaptionStyle[]): Array<[string, string]> {
  if (typeof d.style !== "string") return [];
  const look = d as unknown as ClipLook;
  const lines = describeLook(look, (id) => styles.find((s) => s.id === id)?.name ?? id);
  return [...lines, ["Brand kit", d.brand_kit ? "A saved kit (see Brand kits)" : "None"]];
}

export default function AccountPage() {
  useTitle("Account");
  const { session } = useSession();
  const [answer, setAnswer] = useState<AccountAnswer | null>(null);
  const load = useAction();
  const [styles, setStyles] = useState<CaptionStyle[]>([]);
  useEffect(() => void load.run(async () => setAnswer(await call<AccountAnswer>("GET", "/account"))), [load.run]);
  useEffect(() => {
    call<{ styles: CaptionStyle[] }>("GET", "/styles").then(
      (r) => setStyles(r.styles),
      () => {},
    );
  }, []);
  const account = answer?.account;
  const verified = account?.email_verified ?? false;
  const defaults = answer?.clip_defaults ?? {};
  return (
    <>
      <h1>Account</h1>
      <ErrorText error={load.error} />
      {!account ? (
        !load.error && <p className="loading">Loading your account…</p>
      ) : (
        <>
          {account.billing_review && (
            <Notice kind="warn">
              <strong>Billing review:</strong> this account is under billing review, so live API calls are paused.
              Contact the operator of this clipd to settle it.
            </Notice>
          )}
          <section className="card" aria-labelledby="email-h">
            <h2 id="email-h">E-mail</h2>
            <p>
              <span className="strong">{account.email}</span>{" "}
              {/* Without e-mail an address can never be verified, so the badge would only alarm. */}
              {(verified || session.email_enabled) && (
                <span className={`badge ${verified ? "badge-ok" : "badge-off"}`}>
                  {verified ? "Verified" : "Not verified"}
                </span>
              )}
            </p>
            {!verified && session.email_enabled && <ResendVerification />}
            {account.created_at && <p className="hint">Member since {when(account.created_at)}</p>}
          </section>
          <section className="card" aria-labelledby="defaults-h">
            <h2 id="defaults-h">Saved clip defaults</h2>
            <p className="hint">
              The look a new clip starts with. To save new ones, change a made clip&rsquo;s look on its episode and tick
              &ldquo;Save this look as my defaults&rdquo;.
            </p>
            <dl className="defaults">
              {defaultLines(defaults, styles).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          </section>
          <ChangePassword email={account.email} />
          <SignOutEverywhere />
          <DeleteAccount email={account.email} />
        </>
      )}
    </>
  );
}

/** Mails a new verification link (the monthly free transcripts wait for a verified address). */
function ResendVerification() {
  const { busy, error, run } = useAction();
  const [sent, setSent] = useState(false);
  const resend = async () => {
    if (await run(() => call("POST", "/email/verify/resend", {}).then(() => true))) setSent(true);
  };
  return (
    <div className="stack">
      <p className="hint">Verify your address to get the free transcripts each month.</p>
      <ErrorText error={error} />
      <div aria-live="polite">
        {sent && <Notice kind="ok">A new link is on its way; it works for one hour.</Notice>}
      </div>
      <div>
        <button type="button" onClick={() => void resend()} disabled={busy || sent}>
          Send a new verification link
        </button>
      </div>
    </div>
  );
}

/** Lets a password manager tell which account a password form is for. */
const Username = ({ email }: { email: string }) => (
  <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
);

function ChangePassword({ email }: { email: string }) {
  const { refresh } = useSession();
  const { busy, error, run } = useAction();
  const [done, setDone] = useState(false);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    setDone(false);
    const ok = await run(async () => {
      await call("POST", "/account/password", {
        current_password: String(data.get("current") ?? ""),
        new_password: String(data.get("new") ?? ""),
      });
      await refresh().catch(() => {});
      return true;
    });
    if (ok) {
      form.reset();
      setDone(true);
    }
  }
  return (
    <section className="card" aria-labelledby="pw-h">
      <h2 id="pw-h">Change password</h2>
      <form onSubmit={handler(submit)} className="stack">
        <Username email={email} />
        <Field label="Current password" name="current" type="password" autoComplete="current-password" required />
        <Field
          label="New password"
          name="new"
          type="password"
          autoComplete="new-password"
          minLength={10}
          maxLength={256}
          required
          hint="10 to 256 characters, not a common password. Your other sessions are signed out."
        />
        <ErrorText error={error} />
        <div aria-live="polite">
          {done && <Notice kind="ok">Password changed. Other sessions were signed out.</Notice>}
        </div>
        <div>
          <button type="submit" disabled={busy}>
            Change password
          </button>
        </div>
      </form>
    </section>
  );
}

function SignOutEverywhere() {
  const { refresh } = useSession();
  const { busy, error, run } = useAction();
  async function signOut() {
    if (!(await run(async () => (await call("POST", "/signout", { everywhere: true }), true)))) return;
    await refresh().catch(() => {});
    navigate("/signin", { replace: true });
  }
  return (
    <section className="card" aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      <p>Signs out every browser signed in to this account, this one included. API keys keep working.</p>
      <ErrorText error={error} />
      <button type="button" className="secondary" disabled={busy} onClick={handler(signOut)}>
        Sign out everywhere
      </button>
    </section>
  );
}

function DeleteAccount({ email }: { email: string }) {
  const { refresh } = useSession();
  const { busy, error, run } = useAction();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const password = String(new FormData(e.currentTarget).get("password") ?? "");
    if (
      !window.confirm(
        "Delete this account? Its keys and webhooks stop at once and its data is removed later. This cannot be undone.",
      )
    )
      return;
    if (!(await run(async () => (await call("DELETE", "/account", { password }), true)))) return;
    await refresh().catch(() => {});
    navigate("/signin", { replace: true });
  }
  return (
    <section className="card danger-zone" aria-labelledby="delete-h">
      <h2 id="delete-h">Delete account</h2>
      <p>Revokes every key and webhook, signs out every session and schedules the account’s data for removal.</p>
      <form onSubmit={handler(submit)} className="stack">
        <Username email={email} />
        <Field label="Password to confirm" name="password" type="password" autoComplete="current-password" required />
        <ErrorText error={error} />
        <div>
          <button type="submit" className="danger" disabled={busy}>
            Delete account
          </button>
        </div>
      </form>
    </section>
  );
}
