/**
 * The OAuth consent page (issue 30): a chat app's connector asks to use this account through the
 * MCP tool server. The whole request rides in this page's address (GET /oauth/authorize sends the
 * browser here, through sign-in first); the page shows who asks (the name the app gave, and the
 * host it will send you back to, which it cannot dress up) and what it may do, and posts Allow or
 * Deny. Either way the server answers where to go next: back to the app, with a code or a refusal.
 */
import { useEffect, useState } from "react";
import { ApiError, call } from "../api";
import { Redirect, useLocation } from "../router";
import { useSession } from "../session";
import { ErrorText, handler, useAction, useTitle } from "../ui";

interface Request {
  client_id: string;
  client_name: string;
  redirect_uri: string;
  redirect_host: string;
  scopes: Array<{ scope: string; means: string }>;
  resource: string;
}

export default function OAuthConsentPage() {
  useTitle("Connect an app");
  const { session } = useSession();
  const { path, query } = useLocation();
  const search = query.toString();
  const [asked, setAsked] = useState<Request | null>(null);
  const [failed, setFailed] = useState<{ message: string; back?: string } | null>(null);
  const decide = useAction();

  useEffect(() => {
    if (!session.signed_in) return;
    call<Request>("GET", `/oauth/consent?${search}`).then(setAsked, (err: unknown) => {
      const back = err instanceof ApiError ? (err.details.redirect_to as string | undefined) : undefined;
      setFailed({ message: err instanceof Error ? err.message : String(err), back });
    });
  }, [session.signed_in, search]);

  if (!session.signed_in) return <Redirect to={`/signin?next=${encodeURIComponent(`${path}?${search}`)}`} />;

  async function answer(decision: "allow" | "deny") {
    const params = Object.fromEntries(query.entries());
    const r = await decide.run(() => call<{ redirect_to: string }>("POST", "/oauth/consent", { params, decision }));
    if (r) window.location.assign(r.redirect_to);
  }

  if (failed)
    return (
      <div className="narrow">
        <h1>This app cannot connect</h1>
        <p role="alert" className="alert alert-error">
          {failed.message}
        </p>
        {failed.back && (
          <p>
            <a href={failed.back}>Go back to the app</a>
          </p>
        )}
      </div>
    );
  if (!asked) return <p className="loading">Loading the request…</p>;
  return (
    <div className="narrow">
      <h1>Allow {asked.client_name} to use your clipd account?</h1>
      <section className="card stack" aria-labelledby="consent-what">
        <p>
          <strong>{asked.client_name}</strong> asks to use clipd’s tools as <strong>{session.account?.email}</strong>.
          When you answer, you go back to <strong>{asked.redirect_host}</strong>.
        </p>
        <h2 id="consent-what">It will be able to</h2>
        <ul aria-label="Scopes asked for">
          {asked.scopes.map((s) => (
            <li key={s.scope}>
              <code>{s.scope}</code>: {s.means}
            </li>
          ))}
        </ul>
        <p className="hint">
          You can disconnect it at any time on the Keys page. Only allow apps you trust with your account.
        </p>
        <ErrorText error={decide.error} />
        <div className="row-fields">
          <button type="button" disabled={decide.busy} onClick={handler(() => answer("allow"))}>
            Allow
          </button>
          <button type="button" className="secondary" disabled={decide.busy} onClick={handler(() => answer("deny"))}>
            Deny
          </button>
        </div>
      </section>
    </div>
  );
}
