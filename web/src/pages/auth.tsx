/** The signed-out pages: sign in, sign up, forgot and reset password, verify e-mail. */
import { useEffect, useState, type FormEvent } from "react";
import { call } from "../api";
import { Link, navigate, useLocation } from "../router";
import { nextPath } from "../next-path";
import { useSession } from "../session";
import { ErrorText, Field, handler, Notice, useAction, useTitle } from "../ui";

function useCredentialsForm(path: "/signin" | "/signup") {
  const { refresh } = useSession();
  const { query } = useLocation();
  const action = useAction();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const ok = await action.run(async () => {
      await call("POST", path, {
        email: String(form.get("email") ?? "").trim(),
        password: String(form.get("password") ?? ""),
      });
      await refresh(); // a new session brings a new CSRF token
      return true;
    });
    if (ok) navigate(nextPath(query), { replace: true });
  }
  return { ...action, submit };
}

/** `?next=…` to pass on between sign-in and sign-up, so either goes on to the page that asked. */
function useKeepNext(): string {
  const next = useLocation().query.get("next");
  return next ? `?next=${encodeURIComponent(next)}` : "";
}

/** `welcome`: the start page, which says what clipd is before asking to sign in. */
export function SignIn({ welcome = false }: { welcome?: boolean }) {
  useTitle(welcome ? "Clips from your recordings" : "Sign in");
  const { session } = useSession();
  const { busy, error, submit } = useCredentialsForm("/signin");
  const keep = useKeepNext();
  return (
    <div className="narrow">
      {welcome ? (
        <>
          <h1>clipd: short clips from your long recordings</h1>
          <p className="lead">
            Give clipd a podcast, stream or interview. It transcribes it, finds the moments worth posting and cuts them
            into vertical clips with captions burned in, in your brand&rsquo;s look, ready to download.
          </p>
          <ul className="welcome-points">
            <li>
              Upload a file or give a link; clipd works through it and shows each clip ranked, with why it was chosen.
            </li>
            <li>Edit a clip&rsquo;s start, end, captions and style on a live preview before it renders.</li>
            <li>
              Only need a transcript? <Link href="/free">Transcribe a file for free</Link>, no account needed.
            </li>
          </ul>
          <h2>Sign in</h2>
        </>
      ) : (
        <h1>Sign in</h1>
      )}
      <form onSubmit={handler(submit)} className="card stack">
        <Field label="Email" name="email" type="email" autoComplete="email" required />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required />
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {session.email_enabled ? (
          <p>
            <Link href="/forgot-password">Forgot password?</Link>
          </p>
        ) : (
          <p className="hint">
            Forgot your password? This clipd does not send e-mail, so its operator resets passwords with{" "}
            <code>clipd account reset-password</code>.
          </p>
        )}
      </form>
      {session.signup_open !== false && (
        <p className="after-card">
          New to clipd? <Link href={`/signup${keep}`}>Create an account</Link>
        </p>
      )}
    </div>
  );
}

export function SignUp() {
  useTitle("Sign up");
  const { busy, error, submit } = useCredentialsForm("/signup");
  const keep = useKeepNext();
  return (
    <div className="narrow">
      <h1>Create your account</h1>
      <form onSubmit={handler(submit)} className="card stack">
        <Field label="Email" name="email" type="email" autoComplete="email" required />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={10}
          maxLength={256}
          required
          hint="10 to 256 characters, not a common password."
        />
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>
          Sign up
        </button>
      </form>
      <p className="after-card">
        Already have an account? <Link href={`/signin${keep}`}>Sign in</Link>
      </p>
    </div>
  );
}

export function ForgotPassword() {
  useTitle("Forgot password");
  const { busy, error, run } = useAction();
  const [sent, setSent] = useState(false);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    if (await run(async () => (await call("POST", "/password/forgot", { email }), true))) setSent(true);
  }
  return (
    <div className="narrow">
      <h1>Forgot password</h1>
      {sent ? (
        <Notice kind="ok">
          If an account uses that address, a link to choose a new password is on its way. It works once.
        </Notice>
      ) : (
        <form onSubmit={handler(submit)} className="card stack">
          <Field label="Email" name="email" type="email" autoComplete="email" required />
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Send reset link
          </button>
        </form>
      )}
      <p className="after-card">
        <Link href="/signin">Back to sign in</Link>
      </p>
    </div>
  );
}

export function ResetPassword() {
  useTitle("Choose a new password");
  const { query } = useLocation();
  const { refresh } = useSession();
  const token = query.get("token") ?? "";
  const { busy, error, run } = useAction();
  const [done, setDone] = useState(false);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const password = String(new FormData(e.currentTarget).get("password") ?? "");
    const ok = await run(async () => {
      await call("POST", "/password/reset", { token, password });
      await refresh(); // every session of the account ended, this one included
      return true;
    });
    if (ok) setDone(true);
  }
  return (
    <div className="narrow">
      <h1>Choose a new password</h1>
      {!token ? (
        <Notice kind="warn">This link has no token. Open the link from the e-mail again, or ask for a new one.</Notice>
      ) : done ? (
        <Notice kind="ok">
          Your password is changed and every session was signed out. <Link href="/signin">Sign in</Link> with the new
          password.
        </Notice>
      ) : (
        <form onSubmit={handler(submit)} className="card stack">
          <Field
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={10}
            maxLength={256}
            required
            hint="10 to 256 characters, not a common password."
          />
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Set new password
          </button>
        </form>
      )}
    </div>
  );
}

export function VerifyEmail() {
  useTitle("Verify e-mail");
  const { query } = useLocation();
  const { session, refresh } = useSession();
  const token = query.get("token") ?? "";
  const { error, run } = useAction();
  const [state, setState] = useState<"working" | "done" | "failed">("working");
  useEffect(() => {
    if (!token) return;
    void run(async () => {
      await call("POST", "/email/verify", { token });
      await refresh().catch(() => {});
      return true;
    }).then((ok) => setState(ok ? "done" : "failed"));
    // Once per token: run and refresh are left out of the dependencies on purpose.
  }, [token]);
  return (
    <div className="narrow">
      <h1>Verify e-mail</h1>
      {!token ? (
        <Notice kind="warn">This link has no token. Open the link from the e-mail again.</Notice>
      ) : state === "working" ? (
        <p aria-live="polite">Checking the link…</p>
      ) : state === "done" ? (
        <Notice kind="ok">Your e-mail address is verified.</Notice>
      ) : null}
      <ErrorText error={error} />
      <p className="after-card">
        <Link href={session.signed_in ? "/account" : "/signin"}>
          {session.signed_in ? "Go to your account" : "Sign in"}
        </Link>
      </p>
    </div>
  );
}
