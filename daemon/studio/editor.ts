/**
 * The clip editor's reads (issue 31): everything its timeline draws (the clip's pieces, the words
 * around it with their caption, the sentences its handles snap to, the cut's scenes and crop), and
 * the ASS a render would burn for a look and words not saved yet, for the live preview.
 *
 * The preview must show what the render burns, so the ASS is made exactly as caption-burn makes it:
 * the same words (the clip's edits, with the unsaved ones laid over them by the same replaceCues),
 * the same preparation (captionLook: censor, emphasis, the brand kit's style) and the same buildAss,
 * at the frame size the cut renders (frameSize of the shape at 1080). Only the font folder differs:
 * the browser is handed the font files themselves (editorFonts).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { Config } from "../../config/loader.js";
import { resolveLook, type ClipLooks, type Look } from "../account/clip-look.js";
import { captionEditsOf, piecesOf, timelineOf } from "../account/clip-spans.js";
import { snapPieces } from "../account/clip-trim.js";
import {
  clipCues,
  editedWords,
  replaceCues,
  sentencesOf,
  SpanRefusal,
  type EpisodeWord,
} from "../account/clip-words.js";
import type { ClipLook, ClipRow } from "../account/episode-rows.js";
import { kitSnapshot } from "../brand/run-input.js";
import { Refused } from "../domain/errors.js";
import { frameSize } from "../render/aspect.js";
import { readCameraPlan } from "../render/camera.js";
import { buildAss } from "../render/ass.js";
import { captionLook } from "../render/caption-prep.js";
import { decideHookTitle } from "../render/confidence.js";
import { loadStyles } from "../render/styles.js";
import type { TranscriptWord } from "../render/captions.js";
import { retimeWords, type Piece } from "../render/timeline.js";
import type { Queryable } from "../store/db.js";
import { audioHook } from "../render/audio-template.js";
import { isAudioClip, previewFrame } from "./editor-frame.js";

/** What the editor may change before it renders: the preview's body and PATCH /clips/{id}/captions' alike. */
export interface EditorDraft {
  look?: ClipLook;
  cues?: Array<{ id: string; text: string; emphasis?: boolean[] }>;
  pieces?: Piece[];
}

/** How much of the episode around the clip the timeline shows, each side. */
const CONTEXT_S = 20;

export interface EditorInput {
  clip: ClipRow;
  /** The episode transcript's words (source times), as stored. */
  words: TranscriptWord[];
  duration: number;
  looks: ClipLooks;
  db: Queryable;
  config: Config;
  /** The episode's kind, when its probe said (an audio episode's clips are drawn on the audio template). */
  kind?: "audio" | "video";
}

/** The clip's words with its saved and unsaved edits, and its timeline. */
function draftWords(clip: ClipRow, transcript: TranscriptWord[], draft: EditorDraft, duration: number) {
  const saved = captionEditsOf(clip);
  let words = editedWords(transcript, saved);
  const timeline = draft.pieces?.length ? guard(() => snapPieces(words, draft.pieces!, duration)) : timelineOf(clip);
  if (draft.cues?.length) {
    const cues = clipCues(words, timelineOf(clip));
    const changes = draft.cues.flatMap((c) => {
      const cue = cues.find((x) => x.id === c.id);
      return cue && c.text.trim() ? [{ cue, text: c.text.trim(), emphasis: c.emphasis }] : [];
    });
    if (changes.length) words = editedWords(transcript, replaceCues(words, changes, saved));
  }
  return { words, timeline };
}

const guard = <T>(fn: () => T): T => {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SpanRefusal)
      throw new Refused("invalid_request", `body field "${err.field}": ${err.message}`, {
        context: { field: err.field },
      });
    throw err;
  }
};

/** The editor's picture of a clip: pieces, words, captions, sentences, scenes and the current look. */
export async function editorView(o: EditorInput) {
  const { clip } = o;
  const current = await o.looks.current(o.db, clip);
  const pieces = piecesOf(clip);
  const from = Math.max(0, pieces[0]!.start - CONTEXT_S);
  const to = pieces.at(-1)!.end + CONTEXT_S;
  const words = editedWords(o.words, captionEditsOf(clip));
  const timeline = timelineOf(clip);
  const near = words.filter((w) => w.end > from && w.start < to);
  const cueOf = new Map<EpisodeWord, string>();
  const cues = clipCues(words, timeline).map((c) => {
    for (const w of c.words) cueOf.set(w, c.id);
    return { id: c.id, start: c.start, end: c.end, text: c.text };
  });
  const plan = clip.cut?.render_plan;
  return {
    clip_id: clip.id,
    episode_id: clip.episode_id,
    number: clip.number,
    title: String(clip.data.title ?? clip.data.hook ?? `Clip ${clip.number}`),
    episode_duration: o.duration,
    window: { start: from, end: Math.min(to, o.duration || to) },
    pieces,
    timeline,
    words: near.map((w) => ({
      text: w.text,
      start: w.start,
      end: w.end,
      cue: cueOf.get(w) ?? null,
      ...(typeof w.emphasis === "boolean" ? { emphasis: w.emphasis } : {}),
    })),
    cues,
    sentences: sentencesOf(near).map((s) => ({ start: s.start, end: s.end })),
    // Scene cuts and crop centres on the clip's own timeline, as the cut planned them.
    scenes: Array.isArray(plan?.crop_plan) ? plan.crop_plan : [],
    focus: plan?.focus ?? null,
    crop_fit: typeof plan?.fit === "string" ? plan.fit : null,
    // The camera (issue 37): the render's, else the one planned with the episode, so the preview of a
    // clip never rendered frames what its render will (render/camera.ts; positions, not offsets).
    camera: readCameraPlan(plan?.camera ?? (clip.data.crop_plan as { camera?: unknown } | undefined)?.camera) ?? null,
    look: current.look,
  };
}

/** The ASS a render of the draft would burn, and the frame it is laid out on. */
export async function previewAss(o: EditorInput, draft: EditorDraft) {
  const { clip } = o;
  const current = await o.looks.current(o.db, clip);
  const look: Look = draft.look ? resolveLook(current.look, draft.look) : current.look;
  const catalogue = loadStyles(o.config.render?.styles_file || undefined);
  const style = catalogue.styles.find((s) => s.id === look.style);
  if (!style)
    throw new Refused("invalid_request", `body field "look.style": unknown style "${look.style}"`, {
      context: { field: "look.style" },
    });
  const brand = look.brand_kit ? await kitSnapshot(o.db, clip.account_id, look.brand_kit) : undefined;
  if (look.brand_kit && !brand)
    throw new Refused(
      "invalid_request",
      `body field "look.brand_kit": no brand kit ${look.brand_kit} on this account`,
      {
        context: { field: "look.brand_kit" },
      },
    );
  const { words, timeline } = draftWords(clip, o.words, draft, o.duration);
  const duration = +timeline.reduce((a, p) => a + p.end - p.start, 0).toFixed(3);
  const title = String(clip.data.title ?? "") || undefined;
  const prep = captionLook(o.config.render, {
    words: retimeWords(words, timeline),
    title,
    duration,
    style,
    brand,
    choices: { censor: look.censor, emphasis: look.emphasis, emoji: look.emoji },
  });
  const { width, height } = frameSize(look.aspect_ratio, 1080);
  // As caption-burn decides it: a title heard with low confidence gets no box unless its words are typed.
  const min = o.config.render?.hook_min_confidence;
  const decided = decideHookTitle(look.hook_title, title, words, min, look.hook_title_anyway).text;
  const audio = isAudioClip(clip.cut?.render_plan, o.kind);
  // As caption-burn lays it out: an audio clip's still carries the title, so a box repeating it is not
  // drawn, and other hook words take the waveform's band while they show (audio-template.ts).
  const hook = audio ? audioHook(decided, title, width, height, brand?.logo) : { text: decided };
  const ass = buildAss(prep.words, {
    width,
    height,
    style: prep.style,
    size: look.caption_size,
    position: look.caption_position,
    highlight: style.animation !== "none",
    hookTitle: hook.text,
    hookBand: "band" in hook && hook.text ? { top: hook.band.y, height: hook.band.h } : undefined,
    duration,
  });
  const fonts = await editorFonts(prep.style.font, prep.style.bold !== false, brand?.font);
  const frame = await previewFrame({ db: o.db, episodeId: clip.episode_id, brand, audio, title, width, height });
  return { ass, width, height, duration, timeline, look, fonts, frame };
}

/** A font the preview needs: a system font (served by name) or the brand kit's uploaded one (a storage key). */
export type EditorFont = { family: string; file?: string; key?: string; name?: string };

const run = promisify(execFile);
const found = new Map<string, string | null>();

/**
 * The file fontconfig gives libass for `family` at the style's weight, cached per process. The
 * weight matters: handed only the bold face, libass in the browser draws a regular style ("Clean")
 * bold, while the render's fontconfig finds the regular one.
 */
export async function systemFontFile(family: string, bold = true): Promise<string | null> {
  const ask = `${family}:${bold ? "bold" : "regular"}`;
  if (found.has(ask)) return found.get(ask)!;
  const file = await run("fc-match", ["-f", "%{file}", ask], { timeout: 5000 })
    .then((r) => (/\.(ttf|otf|ttc)$/i.test(r.stdout.trim()) ? r.stdout.trim() : null))
    .catch(() => null);
  found.set(ask, file);
  return file;
}

async function editorFonts(
  family: string,
  bold: boolean,
  kitFont?: { key: string; family: string; file_name: string },
) {
  const out: EditorFont[] = [];
  if (kitFont?.key) out.push({ family, key: kitFont.key, name: kitFont.file_name });
  const file = await systemFontFile(kitFont?.key ? "DejaVu Sans" : family, bold);
  if (file) out.push({ family: kitFont?.key ? "DejaVu Sans" : family, file: path.basename(file) });
  return out;
}

/** The system font files the preview may fetch: those of the catalogue's families, by file name. */
export async function servedFontFile(config: Config, name: string): Promise<string | null> {
  const families = new Set([
    "DejaVu Sans",
    ...loadStyles(config.render?.styles_file || undefined).styles.map((s) => s.font),
  ]);
  for (const f of families) {
    for (const bold of [true, false]) {
      const file = await systemFontFile(f, bold);
      if (file && path.basename(file) === name) return file;
    }
  }
  return null;
}
