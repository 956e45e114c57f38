/**
 * /transcripts: order a transcript from a direct https link (the API's own POST /transcripts) or
 * from a file on this device (the web-only upload calls, through the resumable uploader), with the
 * month's free transcripts from GET /me. The API has no list of transcripts, so the page lists
 * the ones ordered in this browser tab's session.
 */
import { useEffect, useRef, useState } from "react";
import { call } from "../api";
import { Link, navigate } from "../router";
import { useSession } from "../session";
import type { MeUsage, Transcript, TranscriptUpload } from "../types";
import { ErrorText, useAction, useTitle, when } from "../ui";
import { SourceForm, UploadProgress, useUpload, type Source } from "../upload";
import "./transcripts.css";

interface Made {
  id: string;
  name: string;
  at: string;
}
const storeKey = (account: string) => `clipd.transcripts.${account}`;

function remembered(account: string): Made[] {
  try {
    const v = JSON.parse(sessionStorage.getItem(storeKey(account)) ?? "[]");
    return Array.isArray(v) ? (v as Made[]).slice(0, 20) : [];
  } catch {
    return [];
  }
}
function remember(account: string, m: Made): void {
  const list = [m, ...remembered(account).filter((x) => x.id !== m.id)].slice(0, 20);
  try {
    sessionStorage.setItem(storeKey(account), JSON.stringify(list));
  } catch {
    /* storage full or off: the list is a convenience */
  }
}

export default function TranscriptsPage() {
  useTitle("Transcripts");
  const account = useSession().session.account?.id ?? "";
  const [me, setMe] = useState<MeUsage | null>(null);
  useEffect(() => void call<MeUsage>("GET", "/me").then(setMe, () => {}), []);
  const made = remembered(account);
  const used = me?.usage.free_transcripts_used;
  const included = me?.limits.free_transcripts_per_month;
  return (
    <>
      <h1>Transcripts</h1>
      <p className="lead">
        Turn a recording into text with timings, from a direct link to an audio or video file or from a file on this
        device.
      </p>
      <p className="usage-line">
        {used !== undefined && included !== undefined
          ? `${used} of ${included} free transcripts used this month. After that, each ` +
            `transcript is paid from your credit.`
          : "\u00a0"}
      </p>
      <NewTranscript
        onMade={(m) => (remember(account, m), navigate(`/transcripts/${m.id}`))}
        maxMinutes={me?.limits.transcript_max_minutes}
      />
      <section aria-labelledby="made-h">
        <h2 id="made-h">Made in this session</h2>
        {made.length === 0 ? (
          <p className="hint">
            Transcripts you order in this browser tab are listed here. Each transcript's page keeps its own address.
          </p>
        ) : (
          <ul className="made-list">
            {made.map((m) => (
              <li key={m.id}>
                <Link href={`/transcripts/${m.id}`}>{m.name}</Link> <span className="hint">{when(m.at)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function NewTranscript({ onMade, maxMinutes }: { onMade: (m: Made) => void; maxMinutes?: number }) {
  const { busy, error, run } = useAction();
  // The transcript whose file is up but not yet started, so a failed start is retried without sending the file again.
  const pending = useRef<{ file: File; id: string } | null>(null);
  const start = (file: File, id: string) =>
    run(async () => {
      await call("POST", `/transcripts/${encodeURIComponent(id)}/uploaded`, {});
      pending.current = null;
      onMade({ id, name: file.name, at: new Date().toISOString() });
    });
  const upload = useUpload({
    onComplete: () => pending.current && void start(pending.current.file, pending.current.id),
  });

  async function submit(src: Source) {
    if (src.kind === "link") {
      const t = await run(() => call<Transcript>("POST", "/transcripts", { url: src.url }));
      if (t) onMade({ id: t.id, name: t.name ?? src.url, at: new Date().toISOString() });
      return;
    }
    const p = pending.current;
    if (p && p.file === src.file && upload.state.phase === "done") return void start(p.file, p.id);
    const t = await run(() => call<TranscriptUpload>("POST", "/transcripts/uploads", { file_name: src.file.name }));
    if (!t) return;
    pending.current = { file: src.file, id: t.transcript_id };
    await upload.start(src.file, t.upload);
  }

  return (
    <section aria-labelledby="new-tr-h" className="card">
      <h2 id="new-tr-h">New transcript</h2>
      <SourceForm
        onSubmit={(s) => void submit(s)}
        busy={busy || upload.busy}
        fileHint={
          `An audio or video file${maxMinutes ? ` up to ${maxMinutes} minutes long` : ""}; ` +
          `you can also drop it here.`
        }
      >
        <ErrorText error={error} />
      </SourceForm>
      <UploadProgress upload={upload} />
    </section>
  );
}
