/**
 * What caption-burn draws, made ready before the render: the clip's words (censored and marked for
 * emphasis), the style in the clip's brand kit, the bleep spans for the audio, and the font folder
 * libass is pointed at (render.fonts_dir and the kit's uploaded font together).
 *
 * It lives in the render room, not in the caption-burn plugin, because the clip editor's live
 * preview (daemon/studio/editor.ts) must draw the very same words and style from the same ASS:
 * `captionLook` is that shared part, without the font folder a preview has no use for.
 */
import { copyFile, mkdir, readdir, rm, symlink } from "node:fs/promises";
import path from "node:path";
import type { CaptionStyle, CaptionWord } from "./ass.js";
import type { BrandSnapshot } from "./brand.js";
import { bleepSpans, censorWords, loadWordList, type CensorMode, type Span } from "./censor.js";
import { emphasize, loadEmojiMap } from "./emphasis.js";
import { stepFile, type Storage } from "../storage/storage.js";
import { brandStyle } from "./styles.js";

export interface CaptionChoices {
  censor: CensorMode;
  emphasis: boolean;
  emoji: boolean;
}

export interface Prepared {
  words: CaptionWord[];
  style: CaptionStyle;
  /** Spans of the clip to bleep; empty unless censor is bleep and a listed word is said. */
  bleep: Span[];
  fontsDir?: string;
}

interface Ctx {
  storage: Storage;
  workdir: string;
  signal?: AbortSignal;
  config?: {
    render?: { fonts_dir?: string; censor_words?: string; censor_low_confidence?: boolean; emoji_file?: string };
  };
}

/** The most font files linked in from render.fonts_dir (libass reads every one at start). */
const MAX_FONTS = 500;
const FONT_FILE = /\.(ttf|otf|ttc)$/i;

type PrepareInput = {
  words: CaptionWord[];
  title?: string;
  duration: number;
  style: CaptionStyle;
  brand?: BrandSnapshot | null;
  choices: CaptionChoices;
};

/** The words and style caption-burn burns (no files touched): what the render and the editor's preview share. */
export function captionLook(render: NonNullable<Ctx["config"]>["render"], o: PrepareInput): Omit<Prepared, "fontsDir"> {
  let words = o.words;
  let bleep: Span[] = [];
  if (o.choices.censor !== "off") {
    const c = censorWords(words, loadWordList(render?.censor_words || undefined), {
      lowConfidence: render?.censor_low_confidence === true,
    });
    words = c.words;
    if (o.choices.censor === "bleep") bleep = bleepSpans(words, c.listed, o.duration);
  }
  // Emphasis reads the masked words, so a listed word is never a key phrase.
  if (o.choices.emphasis)
    words = emphasize(words, {
      title: o.title,
      emoji: o.choices.emoji ? loadEmojiMap(render?.emoji_file || undefined) : null,
    });
  return { words, style: brandStyle(o.style, o.brand), bleep };
}

export async function prepareCaptions(ctx: Ctx, o: PrepareInput): Promise<Prepared> {
  const render = ctx.config?.render ?? {};
  return { ...captionLook(render, o), fontsDir: await fontsFolder(ctx, o.brand, render.fonts_dir) };
}

/**
 * The folder for libass's `fontsdir`: render.fonts_dir as it is, or, when the brand kit has its own
 * font, a workdir folder holding that font beside links to render.fonts_dir's fonts (libass takes
 * one folder). fontconfig's system fonts stay available either way.
 */
async function fontsFolder(
  ctx: Ctx,
  brand: BrandSnapshot | null | undefined,
  configured?: string,
): Promise<string | undefined> {
  const base = configured ? path.resolve(configured) : undefined;
  if (!brand?.font?.key) return base;
  const dir = path.join(ctx.workdir, "fonts");
  await rm(dir, { recursive: true, force: true }); // a retry in the same workdir starts clean
  await mkdir(dir, { recursive: true });
  const ext = FONT_FILE.exec(brand.font.file_name ?? "")?.[1]?.toLowerCase() ?? "ttf";
  // The kit's font takes a fixed name: an uploaded file name never becomes a path here.
  await copyFile(await stepFile(ctx, brand.font.key), path.join(dir, `brand-font.${ext}`));
  if (base) {
    const names = (await readdir(base, { withFileTypes: true }))
      .filter((e) => e.isFile() && FONT_FILE.test(e.name))
      .slice(0, MAX_FONTS);
    await Promise.all(
      names
        .filter((e) => !e.name.startsWith("brand-font."))
        .map((e) => symlink(path.join(base, e.name), path.join(dir, e.name))),
    );
  }
  return dir;
}
