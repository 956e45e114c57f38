/**
 * /free: the public free transcription page, no account. A link goes to the free API's own
 * POST /transcribe (with the free key saved in this browser, if any); a file goes through the
 * web-only free upload calls and the resumable uploader. Every refusal is shown in plain words
 * with its numbers (free-refusals.ts); the limits and the retention are stated up front.
 */
import { useRef, useState } from "react";
import { Link, navigate } from "../router";
import type { FreeAccepted } from "../types";
import { useAction, useTitle } from "../ui";
import { SourceForm, UploadProgress, useUpload, type Source } from "../upload";
import {
  forgetFreeKey,
  freeUpload,
  freeUploaded,
  refusalOf,
  resultPath,
  savedFreeKey,
  transcribeLink,
} from "./free-calls";
import { freeLimitsOf, freeRefusalText } from "./free-refusals";
import { useSession } from "../session";
import "./free.css";

export default function FreePage() {
  const L = freeLimitsOf(useSession().session);
  useTitle("Free transcription");
  const [key, setKey] = useState(savedFreeKey);
  const [refusal, setRefusal] = useState<string | null>(null);
  const { busy, run } = useAction();
  const pending = useRef<FreeAccepted | null>(null);
  // A refusal is worded here rather than by useAction, which would show the server's bare message.
  const attempt = async <T,>(fn: () => Promise<T>) => {
    setRefusal(null);
    return run(async () => {
      try {
        return await fn();
      } catch (err) {
        setRefusal(freeRefusalText(refusalOf(err)));
        return undefined;
      }
    });
  };
  const started = (a: FreeAccepted) =>
    attempt(async () => {
      // A refused file is deleted by the server, so the next try starts a new upload either way.
      pending.current = null;
      await freeUploaded(a.id);
      navigate(resultPath(a));
    });
  const upload = useUpload({ onComplete: () => pending.current && void started(pending.current) });

  async function submit(src: Source) {
    if (src.kind === "link") {
      const a = await attempt(() => transcribeLink(src.url, key));
      if (a) navigate(resultPath(a));
      return;
    }
    const a = await attempt(() => freeUpload(src.file.name, key));
    if (!a?.upload) return;
    pending.current = a;
    await upload.start(src.file, a.upload);
  }

  return (
    <>
      <h1>Free transcription</h1>
      <p className="lead">
        Turn a recording into text, free and without an account: give a direct link to an audio or video file, or upload
        one.
      </p>
      <section aria-labelledby="limits-h" className="free-limits">
        <h2 id="limits-h">What is free</h2>
        <ul>
          <li>
            Without a key: recordings up to {L.anonMinutes} minutes, {L.anonPerDay} file a day from each address.
          </li>
          <li>
            With a free key: recordings up to {L.keyMinutes} minutes, {L.keyPerDay} files a day.{" "}
            <Link href="/free/key">Create a free key</Link>
          </li>
          <li>Files up to {L.maxMegabytes} MB. English is the supported language.</li>
          <li>
            Uploaded audio is deleted after {L.audioDays} days, and the text after {L.textDays} days.
          </li>
        </ul>
      </section>
      <section aria-labelledby="free-new-h" className="card">
        <h2 id="free-new-h">Your recording</h2>
        <p className="key-line">
          {key ? (
            <>
              Using your free key <code>{key.slice(0, 13)}…</code>, saved in this browser.{" "}
              <button type="button" className="link-button" onClick={() => (forgetFreeKey(), setKey(null))}>
                Forget the key
              </button>
            </>
          ) : (
            "No key: the limits without a key apply."
          )}
        </p>
        <SourceForm
          onSubmit={(s) => void submit(s)}
          busy={busy || upload.busy}
          fileHint={`An audio or video file up to ${L.maxMegabytes} MB; you can also drop it here.`}
        >
          <div role="alert" className={refusal ? "alert alert-error" : "alert-empty"}>
            {refusal}
          </div>
        </SourceForm>
        <UploadProgress upload={upload} />
      </section>
    </>
  );
}
