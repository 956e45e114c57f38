/**
 * The episode studio's reads for the website: an episode's stored source (for the page's player),
 * its transcript lines, and three images drawn once each and kept next to the episode's files in
 * storage (under its import run, so they go when the run's files go): the waveform, a clip's
 * poster and a caption style's preview. Every read is by account: another account's episode or
 * clip is not found. Also the public results page's transcript, behind a signed link (results.ts).
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import sharp from "sharp";
import type { Config } from "../../config/loader.js";
import type { Runner } from "../engine/runner.js";
import { NotFound } from "../domain/errors.js";
import { DEFAULT_ASPECT, frameSize, isAspect } from "../render/aspect.js";
import type { Storage } from "../storage/storage.js";
import { loadStyles } from "../render/styles.js";
import type { Db } from "../store/db.js";
import { clipsOf } from "../account/episode-rows.js";
import type { TranscriptService } from "../account/transcripts.js";
import { DrawOnce, type StoredImage } from "./cache.js";
import {
  clipFiles,
  clipPieces,
  clipStart,
  episodeFiles,
  requireSource,
  requireTranscript,
  type EpisodeFiles,
} from "./episode-files.js";
import { card, frameAt, inWorkdir } from "./frames.js";
import { FRAME, neutralFrame, renderPreview, sampleWords } from "./preview.js";
import { drawWaveform, loudnessLevels, WAVEFORM_BARS } from "./waveform.js";
import { styleVersion, transcriptLines, type TranscriptLines } from "./lines.js";
import { readResults, type Results, type ResultsSource } from "./results.js";
import { editorView, previewAss, servedFontFile, type EditorDraft } from "./editor.js";
import { ClipLooks } from "../account/clip-look.js";

export interface StudioDeps {
  db: Db;
  runner: Runner;
  storage: Storage;
  config: Config;
  log: Logger;
  transcripts: TranscriptService;
}

export interface EpisodeMedia {
  key: string;
  name: string;
  kind: "audio" | "video" | null;
  duration: number | null;
  /** Each clip's pieces in source seconds, in the order they play. */
  clips: Array<{ clip_id: string; pieces: Array<{ start: number; end: number }> }>;
}

export const POSTER = { width: 270, height: 480 } as const;
/** How long one drawing may take; a waveform decodes the whole source. */
const DRAW_MS = { waveform: 300_000, frame: 60_000 } as const;

export class StudioService {
  /** The drawn images' store (its `draws` counts this process's drawings). */
  readonly images: DrawOnce;

  constructor(private readonly deps: StudioDeps) {
    this.images = new DrawOnce(deps.storage);
  }

  /** The stored source for the page's player: key, file name, kind, length, and each clip's pieces. */
  async media(accountId: string, id: string): Promise<EpisodeMedia> {
    const f = await episodeFiles(this.deps, accountId, id);
    const source = await requireSource(this.deps, f);
    const clips = (await clipsOf(this.deps.db, f.episode.id)).map((c) => ({ clip_id: c.id, pieces: clipPieces(c) }));
    return { ...source, kind: f.kind ?? null, duration: f.duration, clips };
  }

  /** The clip editor's picture of a clip (editor.ts). */
  async editor(accountId: string, clipId: string) {
    return editorView(await this.editorInput(accountId, clipId));
  }

  /** The ASS a render of the editor's unsaved draft would burn (editor.ts). */
  async editorPreview(accountId: string, clipId: string, draft: EditorDraft) {
    return previewAss(await this.editorInput(accountId, clipId), draft);
  }

  /** A caption font file the preview may load, by file name; null when it is not one of the styles'. */
  captionFont(name: string): Promise<string | null> {
    return servedFontFile(this.deps.config, name);
  }

  private async editorInput(accountId: string, clipId: string) {
    const { clip, files: f } = await clipFiles(this.deps, accountId, clipId);
    const t = await requireTranscript(this.deps, f);
    const looks = new ClipLooks(this.deps.config.render?.styles_file, this.deps.config.render?.loudness_lufs);
    return {
      clip,
      words: t.words,
      duration: f.duration ?? 0,
      looks,
      db: this.deps.db,
      config: this.deps.config,
      ...(f.kind ? { kind: f.kind } : {}),
    };
  }

  /** The transcript's lines, filtered by `q` (case-insensitive); at most TRANSCRIPT_LIMIT. */
  async transcript(accountId: string, id: string, q?: string): Promise<TranscriptLines> {
    const f = await episodeFiles(this.deps, accountId, id);
    return transcriptLines(await requireTranscript(this.deps, f), q);
  }

  /** The source's loudness as a PNG strip (studio/waveform.png). */
  async waveform(accountId: string, id: string): Promise<StoredImage> {
    const f = await episodeFiles(this.deps, accountId, id);
    const source = await requireSource(this.deps, f);
    return this.images.get(`${studioKey(f)}/waveform.png`, "image/png", () =>
      this.draw(DRAW_MS.waveform, async (workdir, signal) => {
        const file = await this.local(source.key, workdir, signal);
        return drawWaveform(await loudnessLevels(file, f.duration ?? 0, WAVEFORM_BARS, { workdir, signal }));
      }),
    );
  }

  /**
   * A clip's poster (JPEG, 270 pixels on its short side, 270×480 for 9:16): the render's poster
   * once it has one, else its first frame, or a card with its title for audio, in the shape the
   * clip was last cut in (the shape is in the key, so a clip cut again in another shape gets a new
   * poster).
   */
  async poster(accountId: string, clipId: string): Promise<StoredImage> {
    const { clip, files: f } = await clipFiles(this.deps, accountId, clipId);
    const source = await requireSource(this.deps, f);
    const at = clipStart(clip);
    const cutShape: unknown = clip.cut?.aspect_ratio;
    const aspect = isAspect(cutShape) ? cutShape : DEFAULT_ASPECT;
    const size = aspect === DEFAULT_ASPECT ? POSTER : frameSize(aspect, POSTER.width);
    const name = aspect === DEFAULT_ASPECT ? "poster.jpg" : `poster-${aspect.replace(":", "x")}.jpg`;
    // A rendered clip shows its render's poster (the frame at its hook's first word, titled: the
    // poster stage), scaled down; its key names the render, so a new render gets a new poster.
    const rendered: unknown = clip.render?.thumbnail_key;
    if (typeof rendered === "string" && (await this.deps.storage.exists(rendered))) {
      const tag = createHash("sha256").update(rendered).digest("hex").slice(0, 12);
      return this.images.get(`${studioKey(f)}/clips/${clip.id}/poster-${tag}.jpg`, "image/jpeg", async () =>
        sharp(await this.deps.storage.read(rendered))
          .resize(size.width, size.height, { fit: "cover" })
          .jpeg({ quality: 82, mozjpeg: true })
          .toBuffer(),
      );
    }
    return this.images.get(`${studioKey(f)}/clips/${clip.id}/${name}`, "image/jpeg", () =>
      this.draw(DRAW_MS.frame, async (workdir, signal) => {
        const png =
          f.kind === "video"
            ? await frameAt(await this.local(source.key, workdir, signal), at, size, { workdir, signal })
            : await card(
                size,
                String(clip.data.title ?? `Clip ${clip.number}`),
                `${clock(at)} – ${clock(Number(clip.data.end ?? at))}`,
              );
        return sharp(png).jpeg({ quality: 82, mozjpeg: true }).toBuffer();
      }),
    );
  }

  /** The style's captions on a 9:16 frame of the episode (PNG, 360×640). Unknown style: 404. */
  async stylePreview(accountId: string, id: string, styleId: string): Promise<StoredImage> {
    const cat = loadStyles(this.deps.config.render?.styles_file || undefined);
    const style = cat.styles.find((s) => s.id === styleId);
    if (!style) {
      const known = cat.styles.map((s) => s.id);
      throw new NotFound("not_found", `no caption style "${styleId}"; the styles are ${known.join(", ")}`, {
        context: { field: "style", styles: known },
      });
    }
    const f = await episodeFiles(this.deps, accountId, id);
    const source = await requireSource(this.deps, f);
    const transcript = await requireTranscript(this.deps, f);
    const first = (await clipsOf(this.deps.db, f.episode.id))[0];
    const at = first ? clipStart(first) : (f.duration ?? 0) / 2;
    // The style's definition is in the key: an edited styles file draws its previews anew.
    return this.images.get(`${studioKey(f)}/styles/${style.id}-${styleVersion(style)}.png`, "image/png", () =>
      this.draw(DRAW_MS.frame, async (workdir, signal) => {
        const base =
          f.kind === "video"
            ? await frameAt(await this.local(source.key, workdir, signal), at, FRAME, { workdir, signal })
            : await neutralFrame();
        return renderPreview({
          base,
          style,
          words: sampleWords(transcript, first ? at : undefined),
          workdir,
          fontsDir: this.deps.config.render?.fonts_dir || undefined,
          signal,
        });
      }),
    );
  }

  /** A transcript behind a results link: an account's (by transcript id) or a free job's. */
  results(source: ResultsSource, id: string): Promise<Results> {
    return readResults(this.deps, source, id);
  }

  private draw(ms: number, fn: (workdir: string, signal: AbortSignal) => Promise<Buffer>): Promise<Buffer> {
    const signal = AbortSignal.timeout(ms);
    return inWorkdir(this.deps.config.data_dir, (dir) => fn(dir, signal));
  }

  private async local(key: string, workdir: string, signal: AbortSignal): Promise<string> {
    return (await this.deps.storage.local(key, { workdir, signal })).path;
  }
}

/** Where an episode's drawn images live: beside its import run's files, versioned. */
function studioKey(f: EpisodeFiles): string {
  return `runs/${f.episode.run_id}/studio/v1`;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
