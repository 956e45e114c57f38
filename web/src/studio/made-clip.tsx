/**
 * One made clip: its job's progress while it is cut or rendered, then an inline 9:16 player of the
 * result (the job's or the clip's signed download_url), a Download link, Restyle (PATCH /clips/{id}
 * with what was changed; the new render replaces the old one when its job is done), Edit captions
 * (caption-editor.tsx) and the clip's captions, searchable. The player's poster is the rendered
 * clip's (the frame at the hook's first word) once there is one.
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import { call } from "../api";
import type { CaptionStyle, Clip, Job, RestyleAnswer } from "../types";
import { ErrorText, handler, useAction } from "../ui";
import { CaptionEditor } from "./caption-editor";
import { HookDropped } from "./hook-dropped";
import { Captions } from "./captions";
import { bodyOf, KEEP_ALL, LookFields, type LookForm } from "./look-fields";
import { posterUrl } from "./poster";
import { ExportPrice } from "./price";
import { JOB_STATUS, ProgressBar } from "./status";
import { minutesText, queueWords, useFallingSeconds } from "./use-progress-words";
import { isActive } from "./use-jobs";

interface Props {
  episodeId: string;
  clip: Clip;
  job?: Job;
  styles: CaptionStyle[];
  onRestyled(answer: RestyleAnswer, title: string): void;
}

export function MadeClip({ episodeId, clip, job, styles, onRestyled }: Props) {
  const video = useRef<HTMLVideoElement>(null);
  const done = job?.status === "completed" ? job.download_url : undefined;
  const url = done ?? clip.download_url;
  const running = job && isActive(job);
  const working = running
    ? job.kind === "cut"
      ? "Cutting and rendering"
      : "Rendering"
    : clip.cut_status === "cutting"
      ? "Cutting"
      : clip.export_status === "rendering"
        ? "Rendering"
        : null;
  const left = useFallingSeconds(`${job?.job_id}:${job?.status}`, job?.eta_seconds);
  const leftWords = running && left !== null ? minutesText(left) : "";
  return (
    <article className="made" aria-labelledby={`made-${clip.clip_id}-t`}>
      <h3 id={`made-${clip.clip_id}-t`}>{clip.title}</h3>
      <p className="clip-meta">
        <span>Clip {clip.number}</span>
        <span>{clip.length} long</span>
        <span>
          {clip.start}–{clip.end}
        </span>
        {clip.style && <span>Style: {styles.find((s) => s.id === clip.style)?.name ?? clip.style}</span>}
      </p>
      {working && (
        <ProgressBar
          label={`Progress of ${clip.title}`}
          percent={job?.progress}
          text={[`${working}${job ? ` (${JOB_STATUS[job.status]})` : ""}`, queueWords(job?.queue), leftWords]
            .filter(Boolean)
            .join(" · ")}
        />
      )}
      {job?.status === "failed" && (
        <p role="alert" className="alert alert-error">
          {job.error?.message ?? "The job failed."}
        </p>
      )}
      {job?.status === "completed" && job.changes && job.changes.length > 0 && (
        <p className="hint">Restyled: {job.changes.join("; ")}</p>
      )}
      {url && (
        <div className="made-grid">
          <div className="made-player">
            <video
              key={url}
              ref={video}
              src={url}
              poster={(done ? job?.poster_url : undefined) ?? clip.poster_url ?? posterUrl(clip.clip_id)}
              controls
              playsInline
              preload="metadata"
              width={270}
              height={480}
              aria-label={`Made clip ${clip.title}`}
            />
            <a className="button-link" href={url} download>
              Download
            </a>
          </div>
          <div className="made-side stack">
            <HookDropped clip={clip} busy={!!running} onRestyled={onRestyled} />
            <Restyle episodeId={episodeId} clip={clip} styles={styles} busy={!!running} onRestyled={onRestyled} />
            <CaptionEditor clip={clip} busy={!!running} onEdited={(a) => onRestyled(a, clip.title)} />
            <Captions
              clipId={clip.clip_id}
              onSeek={(s) => {
                const v = video.current;
                if (!v) return;
                v.currentTime = s;
                void v.play().catch(() => {});
              }}
            />
          </div>
        </div>
      )}
    </article>
  );
}

function Restyle({
  episodeId,
  clip,
  styles,
  busy,
  onRestyled,
}: {
  episodeId: string;
  clip: Clip;
  styles: CaptionStyle[];
  busy: boolean;
  onRestyled: Props["onRestyled"];
}) {
  const [form, setForm] = useState<LookForm>(KEEP_ALL);
  const [save, setSave] = useState(false);
  const [said, setSaid] = useState("");
  const action = useAction();
  // "Rendering again: …" describes the job in flight; once it is over the clip's own line
  // ("Restyled: …") says what changed, so the stale line goes.
  const wasBusy = useRef(busy);
  useEffect(() => {
    if (wasBusy.current && !busy) setSaid("");
    wasBusy.current = busy;
  }, [busy]);
  async function submit(e: FormEvent) {
    e.preventDefault();
    const look = bodyOf(form);
    if (typeof look === "string") return action.setError(look);
    const answer = await action.run(() =>
      call<RestyleAnswer>("PATCH", `/clips/${encodeURIComponent(clip.clip_id)}`, {
        ...look,
        ...(save ? { save_as_default: true } : {}),
      }),
    );
    if (!answer) return;
    const saved = save ? " Saved as your defaults." : "";
    setSaid(
      answer.changes.length
        ? `Rendering again: ${answer.changes.join("; ")}.${saved}`
        : `Nothing to change: the clip already looks like this.${saved}`,
    );
    if (answer.changes.length) onRestyled(answer, clip.title);
  }
  return (
    <details className="restyle">
      <summary>Change the look</summary>
      <form onSubmit={handler(submit)} className="stack">
        <p className="hint">
          Choose only what should change; the rest stays. The clip is rendered again (a change of fit or background cuts
          it again too).
        </p>
        <LookFields
          episodeId={episodeId}
          styles={styles}
          value={form}
          onChange={setForm}
          keep
          disabled={action.busy}
          previews
        />
        <label className="choice">
          <input type="checkbox" checked={save} onChange={(e) => setSave(e.currentTarget.checked)} /> Save this look as
          my defaults
        </label>
        <ExportPrice n={1} />
        <ErrorText error={action.error} />
        <p className="hint" aria-live="polite">
          {said}
        </p>
        <div>
          <button type="submit" disabled={action.busy || busy}>
            Restyle
          </button>
        </div>
      </form>
    </details>
  );
}
