/**
 * The clip editor (`/episodes/{id}/clips/{n}/edit`, issue 31): a timeline to trim the clip to a
 * word or sentence and put cut pauses back, its captions edited word by word, and its look, all
 * shown at once on a live preview of the chosen shape, drawn from the ASS the render would burn.
 * One Render button saves it all as one job (PATCH /clips/{id}/captions with pieces, cues and
 * look) and shows its progress, then the rendered file beside the preview.
 */
import { useCallback, useEffect, useMemo, useState } from "react";
import { call, messageOf } from "../api";
import { Link } from "../router";
import type { CaptionStyle, Episode, EpisodeMedia, Job, Piece, RestyleAnswer } from "../types";
import { LookPanel, type EditorLook } from "./look-panel";
import { lengthOf, restoreGap, same, trim, type EditorView } from "./model";
import { Preview, type PreviewAss } from "./preview";
import { Timeline } from "./timeline";
import { useHistory } from "./history";
import { RenderBar } from "./render-bar";
import { useUndoKeys } from "./undo-keys";
import { draftOf, Words, type CueDraft } from "./words";
import { useLeaveGuard } from "../upload/leave-guard";
import "./editor.css";

type View = EditorView & { look: EditorLook };
interface Edits {
  pieces: Piece[];
  drafts: Record<string, CueDraft>;
  look: EditorLook | null;
}
const LOOK_KEYS = [
  "style",
  "caption_size",
  "caption_position",
  "hook_title",
  "fit",
  "background",
  "aspect_ratio",
  "brand_kit",
] as const;

/** A title as a file name: letters, digits and dashes. */
const fileName = (title: string) =>
  title
    .normalize("NFKD")
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60) || "clip";

export default function ClipEditorPage({ episodeId, number }: { episodeId: string; number: number }) {
  const [view, setView] = useState<View | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [styles, setStyles] = useState<CaptionStyle[]>([]);
  // The unsaved edits, with their undo and redo (history.ts).
  const edits = useHistory<Edits>({ pieces: [], drafts: {}, look: null });
  const { pieces, drafts, look } = edits.state;
  const [preview, setPreview] = useState<PreviewAss | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [playhead, setPlayhead] = useState<number | null>(null);
  const [seek, setSeek] = useState<{ t: number; n: number } | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const [rendered, setRendered] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A refused or failed render, said beside Render: the editor and its unsaved edits stay.
  const [renderError, setRenderError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const ep = await call<Episode>("GET", `/episodes/${encodeURIComponent(episodeId)}`);
    const clip = ep.clips.find((c) => c.number === number);
    if (!clip) throw new Error(`This episode has no clip ${number}.`);
    const v = await call<View>("GET", `/clips/${clip.clip_id}/editor`);
    setView(v);
    edits.reset({ pieces: v.pieces, drafts: {}, look: v.look });
    if (clip.download_url) setRendered(clip.download_url);
  }, [episodeId, number, edits.reset]);

  useEffect(() => {
    load().catch((e: unknown) => setError(messageOf(e)));
    call<EpisodeMedia>("GET", `/episodes/${encodeURIComponent(episodeId)}/media`)
      .then((m) => setSrc(m.source.url))
      .catch((e: unknown) => setError(messageOf(e)));
    call<{ styles: CaptionStyle[] }>("GET", "/styles")
      .then((r) => setStyles(r.styles))
      .catch(() => setStyles([]));
  }, [episodeId, load]);

  const cues = useMemo(
    () => (view ? view.cues.map((c) => ({ id: c.id, words: view.words.filter((w) => w.cue === c.id) })) : []),
    [view],
  );
  // What differs from the saved clip: the body of both the preview and the render.
  const body = useMemo(() => {
    if (!view || !look) return null;
    const changed = cues.flatMap((c) => {
      const d = drafts[c.id];
      if (!d) return [];
      const was = draftOf(c.words);
      const text = d.words.join(" ").trim().replace(/\s+/g, " ");
      if (text === was.words.join(" ") && d.emphasis.join() === was.emphasis.join()) return [];
      return [{ id: c.id, text, emphasis: text.split(" ").map((_, i) => d.emphasis[i] ?? false) }];
    });
    const lookChanges = Object.fromEntries(LOOK_KEYS.filter((k) => look[k] !== view.look[k]).map((k) => [k, look[k]]));
    return {
      ...(changed.length ? { cues: changed } : {}),
      ...(same(pieces, view.pieces) ? {} : { pieces }),
      ...(Object.keys(lookChanges).length ? { look: lookChanges } : {}),
    };
  }, [view, look, cues, drafts, pieces]);
  const bodyKey = JSON.stringify(body);

  // The preview follows every change, a quarter second after the last one.
  useEffect(() => {
    if (!view || body === null) return;
    const timer = setTimeout(() => {
      call<PreviewAss>("POST", `/clips/${view.clip_id}/captions/preview`, body)
        .then((p) => {
          setPreview(p);
          setPreviewError(null);
        })
        .catch((e: unknown) => setPreviewError(messageOf(e)));
    }, 250);
    return () => clearTimeout(timer);
    // Hook dependencies on purpose: bodyKey stands for body
  }, [view, bodyKey]);

  // A running render is read every second until it ends.
  useEffect(() => {
    if (!job || job.status === "completed" || job.status === "failed") return;
    const timer = setTimeout(() => {
      call<Job>("GET", `/jobs/${job.job_id}`)
        .then((j) => {
          setJob(j);
          if (j.status === "completed") {
            if (j.download_url) setRendered(j.download_url);
            void load();
          }
        })
        .catch((e: unknown) => setRenderError(messageOf(e)));
    }, 1000);
    return () => clearTimeout(timer);
  }, [job, load]);

  const onTime = useCallback((t: number) => setPlayhead(t), []);
  const changes = body ? Object.keys(body).length : 0;
  const running = !!job && job.status !== "completed" && job.status !== "failed";
  // Edits not rendered yet: leaving the page (closing, reloading, or a link in the site) asks first.
  useLeaveGuard(changes > 0 && !running, "Your edits to this clip are not rendered yet. Leave and lose them?");
  useUndoKeys(edits.undo, edits.redo);
  if (error)
    return (
      <div className="clip-editor">
        <h1>This clip cannot be edited</h1>
        <p role="alert">{error}</p>
        <p>
          <Link href={`/episodes/${encodeURIComponent(episodeId)}`}>Back to the episode</Link> ·{" "}
          <Link href="/episodes">All episodes</Link>
        </p>
      </div>
    );
  if (!view || !look) return <p className="loading">Loading the clip…</p>;

  async function render() {
    setBusy(true);
    setRenderError(null);
    try {
      const r = await call<RestyleAnswer>("PATCH", `/clips/${view!.clip_id}/captions`, body);
      setJob({
        job_id: r.job_id,
        status: r.status,
        progress: 0,
        kind: "render",
        clip_id: view!.clip_id,
        title: view!.title,
      });
    } catch (e) {
      setRenderError(`Not rendered: ${messageOf(e)} Your changes are still here.`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="clip-editor">
      <p>
        <Link href={`/episodes/${episodeId}`}>Back to the episode</Link>
      </p>
      <h1>Edit “{view.title}”</h1>
      <p className="hint">
        {lengthOf(pieces).toFixed(1)} seconds in {pieces.length} {pieces.length === 1 ? "piece" : "pieces"}. Changes
        show on the preview at once; nothing is rendered until you press Render.
      </p>
      {/* In the order a phone shows them (the preview beside the timeline); a desktop's grid places them */}
      <div className="ed-main">
        <section aria-labelledby="ed-preview-h" className="ed-col ed-at-preview">
          <h2 id="ed-preview-h">Preview</h2>
          {previewError && (
            <p role="alert" id="ed-preview-problem">
              {previewError} Fix this to render.
            </p>
          )}
          {src && preview ? (
            <Preview
              src={src}
              title={view.title}
              preview={preview}
              pieces={preview.timeline ?? pieces}
              fit={look.fit}
              background={look.background}
              focus={view.scenes[0] ?? view.focus}
              camera={view.camera}
              onTime={onTime}
              seek={seek}
            />
          ) : (
            <p className="loading">Drawing the preview…</p>
          )}
          <RenderBar
            edits={edits}
            job={job}
            busy={busy}
            changes={changes}
            previewError={previewError}
            renderError={renderError}
            onRender={() => void render()}
          />
        </section>
        <section aria-labelledby="ed-time-h" className="ed-at-time">
          <h2 id="ed-time-h">Timeline</h2>
          <p className="hint">
            Drag the handles, or focus one and use the arrow keys: a word at a time, with Shift (or PageUp and PageDown)
            a sentence, Home and End as far as it may go. A clip is at least 2 seconds long.
          </p>
          <Timeline
            view={view}
            pieces={pieces}
            playhead={playhead}
            onTrim={(side, t, gesture) => edits.set((e) => ({ ...e, pieces: trim(e.pieces, side, t) }), gesture)}
            onRestore={(i) => edits.set((e) => ({ ...e, pieces: restoreGap(e.pieces, i) }))}
            onSeek={(t) => setSeek({ t, n: (seek?.n ?? 0) + 1 })}
          />
        </section>
        <section aria-labelledby="ed-words-h" className="ed-at-words">
          <h2 id="ed-words-h">Captions</h2>
          <p className="hint">
            Retype a word in its box, or a whole misheard line with “Retype line” (its words share the line’s time); the
            star draws a word in the highlight colour.
          </p>
          <Words
            cues={cues}
            drafts={drafts}
            pieces={pieces}
            onChange={(id, d, group) => edits.set((e) => ({ ...e, drafts: { ...e.drafts, [id]: d } }), group)}
          />
        </section>
        {rendered && (
          <section aria-labelledby="ed-made-h" className="ed-col ed-at-made">
            <h2 id="ed-made-h">Last render</h2>
            {/* No caption track: the captions are burned into the picture */}
            <video
              className="ed-made"
              src={rendered}
              controls
              preload="metadata"
              aria-label={`Rendered clip ${view.title}`}
            />
            <p>
              {/* A file to save, as the episode page's Download: opened in the tab, the MP4 would only play there */}
              <a className="button-link" href={rendered} download={`${fileName(view.title)}.mp4`}>
                Download
              </a>
            </p>
          </section>
        )}
        <section aria-labelledby="ed-look-h" className="ed-col ed-at-look">
          <h2 id="ed-look-h">Look</h2>
          <LookPanel
            look={look}
            styles={styles}
            onChange={(p) =>
              edits.set(
                (e) => ({ ...e, look: { ...e.look!, ...p } }),
                typeof p.hook_title === "string" ? "look:hook-words" : undefined,
              )
            }
          />
        </section>
      </div>
    </div>
  );
}
