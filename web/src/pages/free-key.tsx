/**
 * /free/key: a free key for the free transcription tool (POST /transcribe/keys {email}), shown
 * once with Copy; 3 a day per e-mail address. The visitor may keep it in this browser, where
 * the free page then uses it.
 */
import { useState, type FormEvent } from "react";
import { call } from "../api";
import { Link } from "../router";
import { Field, handler, SecretBox, useAction, useTitle } from "../ui";
import { forgetFreeKey, refusalOf, saveFreeKey, savedFreeKey } from "./free-calls";
import { freeLimitsOf, freeRefusalText } from "./free-refusals";
import { useSession } from "../session";
import "./free.css";

export default function FreeKeyPage() {
  const L = freeLimitsOf(useSession().session);
  useTitle("Free key");
  const [key, setKey] = useState<string | null>(null);
  const [saved, setSaved] = useState(savedFreeKey);
  const [refusal, setRefusal] = useState<string | null>(null);
  const { busy, run } = useAction();

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const keep = form.get("keep") === "on";
    setRefusal(null);
    await run(async () => {
      try {
        const r = await call<{ key: string }>("POST", "/transcribe/keys", { email });
        if (keep) saveFreeKey(r.key), setSaved(r.key);
        setKey(r.key);
      } catch (err) {
        setRefusal(freeRefusalText(refusalOf(err)));
      }
    });
  }

  return (
    <>
      <h1>Free key</h1>
      <p className="lead">
        A free key raises the free tool's limits: recordings up to {L.keyMinutes} minutes instead of {L.anonMinutes},
        and {L.keyPerDay} files a day. It is not an account: it works only for{" "}
        <Link href="/free">free transcription</Link> and the free API (<code>Authorization: Bearer svc_free_…</code>).
      </p>
      {key ? (
        <SecretBox title="Your free key" value={key} onDone={() => setKey(null)} />
      ) : (
        <section aria-labelledby="fk-h" className="card">
          <h2 id="fk-h">New free key</h2>
          <form onSubmit={handler(submit)} className="stack">
            <Field
              label="Email"
              name="email"
              type="email"
              required
              maxLength={320}
              autoComplete="email"
              hint={`At most ${L.keysPerEmailPerDay} keys a day are given to one address.`}
            />
            <label className="choice">
              <input type="checkbox" name="keep" defaultChecked /> Keep the key in this browser for the free page
            </label>
            <div role="alert" className={refusal ? "alert alert-error" : "alert-empty"}>
              {refusal}
            </div>
            <div>
              <button type="submit" disabled={busy}>
                Create free key
              </button>
            </div>
          </form>
        </section>
      )}
      <p className="key-line">
        {saved ? (
          <>
            This browser keeps the key <code>{saved.slice(0, 13)}…</code>.{" "}
            <button type="button" className="link-button" onClick={() => (forgetFreeKey(), setSaved(null))}>
              Forget the key
            </button>
          </>
        ) : (
          "This browser keeps no free key."
        )}
      </p>
    </>
  );
}
