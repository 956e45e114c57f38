/** Small shared pieces: a call runner with busy and error state, alerts, fields, the copy box. */
import { useCallback, useEffect, useId, useRef, useState, type InputHTMLAttributes, type ReactNode } from "react";
import { messageOf } from "./api";

/**
 * An event handler or callback prop from an async function. React ignores what a handler returns,
 * so a rejection would go unhandled; the handlers here report their own failures (most through
 * useAction's run), and anything that still escapes is logged instead of lost.
 */
export function handler<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): (...args: A) => void {
  return (...args) => {
    fn(...args).catch((err: unknown) => console.error(err));
  };
}

/**
 * Runs one async action at a time: `busy` while it runs (buttons disable on it), `error` holding
 * the server's message when it fails. `run` resolves to the action's value, or undefined on error.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const live = useRef(true);
  useEffect(() => () => void (live.current = false), []);
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      if (live.current) setError(messageOf(err));
      return undefined;
    } finally {
      if (live.current) setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

/** An error region: always in the page so screen readers announce what appears in it. */
export function ErrorText({ error }: { error: string | null }) {
  return (
    <div role="alert" className={error ? "alert alert-error" : "alert-empty"}>
      {error}
    </div>
  );
}

export function Notice({ kind = "info", children }: { kind?: "info" | "warn" | "ok"; children: ReactNode }) {
  return <div className={`alert alert-${kind}`}>{children}</div>;
}

type FieldProps = InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string };
export function Field({ label, hint, id, ...input }: FieldProps) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <div className="field">
      <label htmlFor={fid}>{label}</label>
      <input id={fid} aria-describedby={hint ? fid + "-hint" : undefined} {...input} />
      {hint && (
        <p className="hint" id={fid + "-hint"}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A secret shown once (a key, a webhook's signing secret) with a Copy button. */
export function SecretBox({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string>("");
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("Copied to the clipboard.");
    } catch {
      setCopied("Copying was refused by the browser: select the text and copy it by hand.");
    }
  }
  return (
    <section className="secret" aria-label={title}>
      <h2>{title}</h2>
      <p className="warn-text">Copy it now: it will not be shown again.</p>
      <div className="secret-row">
        <code className="secret-value" tabIndex={0}>
          {value}
        </code>
        <button type="button" onClick={handler(copy)}>
          Copy
        </button>
      </div>
      <p className="hint" aria-live="polite">
        {copied}
      </p>
      <button type="button" className="link-button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

const dateFmt = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });
export function when(iso: string | null | undefined, none = "—"): string {
  if (!iso) return none;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateFmt.format(d);
}

const moneyFmt = new Intl.NumberFormat("en", { style: "currency", currency: "USD" });
export const money = (cents: number) => moneyFmt.format(cents / 100);

/** Sets the tab's title for a page. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · clipd`;
  }, [title]);
}
