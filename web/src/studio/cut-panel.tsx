/**
 * Cut and style: the chosen clips (checkboxes on the clip cards) and a look, starting from the
 * account's defaults (GET /me); "Cut N clips" posts them (POST /episodes/{id}/clips, at most 10),
 * one job per clip. Clips the server did not start are listed with its reasons.
 */
import { useEffect, useState, type FormEvent } from "react";
import { call } from "../api";
import type { CaptionStyle, ClipLook, ExportAnswer, StartedJob } from "../types";
import { ErrorText, handler, Notice, useAction } from "../ui";
import { bodyOf, formOf, LookFields, type LookForm } from "./look-fields";
import { SERVICE_LOOK } from "./look";
import { BrandKitPicker } from "./brand-kit-picker";
import { EpisodeCover } from "./episode-cover";
import { ExportPrice } from "./price";

export const MAX_CUT = 10;

interface Props {
  episodeId: string;
  styles: CaptionStyle[];
  defaults: ClipLook | null;
  /** The chosen clips' numbers, best first. */
  chosen: number[];
  ready: boolean;
  onStarted(jobs: StartedJob[]): void;
}

export function CutPanel({ episodeId, styles, defaults, chosen, ready, onStarted }: Props) {
  const [form, setForm] = useState<LookForm>(() => formOf(defaults ?? SERVICE_LOOK));
  const [touched, setTouched] = useState(false);
  const savedKit = (defaults as { brand_kit?: string | null } | null)?.brand_kit ?? null;
  const [kit, setKit] = useState<string | null>(savedKit);
  const [skipped, setSkipped] = useState<ExportAnswer["not_started"]>([]);
  const { busy, error, setError, run } = useAction();
  // The defaults arrive after the first render; take them unless the form was already changed.
  useEffect(() => {
    if (defaults && !touched) setForm(formOf(defaults)), setKit(savedKit);
  }, [defaults, touched, savedKit]);

  const n = chosen.length;
  async function submit(e: FormEvent) {
    e.preventDefault();
    const look = bodyOf(form);
    if (typeof look === "string") return setError(look);
    const answer = await run(() =>
      call<ExportAnswer>("POST", `/episodes/${encodeURIComponent(episodeId)}/clips`, {
        clips: chosen,
        ...look,
        brand_kit: kit,
      }),
    );
    if (!answer) return;
    setSkipped(answer.not_started);
    if (answer.jobs.length) onStarted(answer.jobs);
  }
  return (
    <form onSubmit={handler(submit)} className="stack">
      <h2 id="cut-h">Cut and style</h2>
      <p className="hint">
        Cutting {n === 1 ? "1 chosen clip" : `${n} chosen clips`} (up to {MAX_CUT} at a time): pick a look and cut them;
        each becomes a video in the chosen shape with burned-in captions.
      </p>
      <LookFields
        episodeId={episodeId}
        styles={styles}
        value={form}
        onChange={(f) => (setForm(f), setTouched(true))}
        disabled={busy}
        previews={ready}
      />
      <BrandKitPicker value={kit} onChange={(k) => (setKit(k), setTouched(true))} disabled={busy} />
      <EpisodeCover episodeId={episodeId} />
      <ErrorText error={error} />
      {skipped.length > 0 && (
        <Notice kind="warn">
          <p>Not started:</p>
          <ul>
            {skipped.map((s) => (
              <li key={String(s.clip)}>
                Clip {s.clip}: {s.message}
              </li>
            ))}
          </ul>
        </Notice>
      )}
      <ExportPrice n={n} />
      <div className="actions">
        <button type="submit" disabled={busy || !ready || n === 0 || n > MAX_CUT}>
          {n === 1 ? "Cut 1 clip" : `Cut ${n} clips`}
        </button>
        {n > MAX_CUT && <span className="hint">Choose at most {MAX_CUT}.</span>}
        {!ready && <span className="hint">Clips can be cut once the episode is ready.</span>}
      </div>
    </form>
  );
}
