/**
 * The brand drawn on a clip in its one render (clip-graph.ts): the kit's logo in a corner of the
 * clip, and its intro and outro cards (the card's text on the kit's background, with silence)
 * joined before and after. The captions are burned on the clip before the join, so they keep the
 * clip's own timeline and land after the intro without any shift of their times.
 */
import { existsSync } from "node:fs";
import type { BrandCard, BrandSnapshot } from "./brand.js";
import { wrapText } from "./audio-template.js";
import { escapeFilterValue } from "./render.js";
import { logoMargin, logoWidth } from "./logo-place.js";

/** What of a kit the render needs; carried in the render plan, so a restyle draws the same brand. */
export type PlanBrand = Pick<BrandSnapshot, "colours" | "logo" | "intro" | "outro" | "font">;

/**
 * The brand's files on local disk: the logo, the font, and each card's lines (one text file each, named relative to
 * ffmpeg's folder).
 */
export interface BrandFiles {
  logo?: string;
  font?: string;
  intro?: string[];
  outro?: string[];
}

// A bold face that ships with the fonts the caption styles already need (fonts-dejavu-core).
const DEFAULT_CARD_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

const hex = (v: string | undefined, fallback: string) => (v && /^#[0-9a-fA-F]{6}$/.test(v) ? v : fallback);
const STEREO_48K = "aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo";

/** A card's length: 1–2 s (1.5 when the kit gives none). */
export const cardSeconds = (card?: BrandCard): number =>
  card ? Math.min(2, Math.max(1, Number(card.seconds) || 1.5)) : 0;

/** Whether the intro card plays before the clip (a kit's `intro.order: card_first`); else after it. */
export const introFirst = (brand?: PlanBrand) => brand?.intro?.order === "card_first";

/** Seconds of each card: the intro's (wherever it plays) and the outro's. */
function cardLengths(brand?: PlanBrand): { intro: number; outro: number } {
  return {
    intro: cardSeconds(brand?.intro?.text?.trim() ? brand.intro : undefined),
    outro: cardSeconds(brand?.outro?.text?.trim() ? brand.outro : undefined),
  };
}

/**
 * Seconds the cards add before and after the clip. `before` is where the clip's own timeline
 * starts in the file: the intro's length when it plays first, else 0 (the hook opens the clip).
 */
export function cardTimes(brand?: PlanBrand): { before: number; after: number } {
  const { intro, outro } = cardLengths(brand);
  return introFirst(brand) ? { before: intro, after: outro } : { before: 0, after: intro + outro };
}

/** The font size of a card's title and its lines, for a frame of W×H. */
export function cardLines(card: BrandCard, W: number, H: number): { size: number; lines: string[] } {
  const size = Math.round(Math.min(W, H) * 0.085);
  return { size, lines: wrapText(card.text.trim(), Math.max(8, Math.floor((W * 0.84) / (size * 0.6))), 4) };
}

/**
 * Appends the brand's filters to `parts`, taking the laid-out, captioned clip (`v`, `a`) and giving
 * back the labels of the finished picture and sound. `logoInput`: the ffmpeg input index of the logo.
 */
export function brandTail(
  parts: string[],
  o: {
    v: string;
    a: string;
    width: number;
    height: number;
    fps: number;
    brand?: PlanBrand;
    files?: BrandFiles;
    logoInput?: number;
  },
): { v: string; a: string } {
  const { width: W, height: H, brand, files = {} } = o;
  let v = o.v;
  const logo = brand?.logo;
  if (logo && files.logo && o.logoInput !== undefined) {
    const lw = logoWidth(W, logo.size);
    const opacity = Math.min(1, Math.max(0.05, Number(logo.opacity) || 1));
    const margin = logoMargin(W, H);
    const x = logo.corner.endsWith("left") ? String(margin) : `W-w-${margin}`;
    const y = logo.corner.startsWith("top") ? String(margin) : `H-h-${margin}`;
    // A one-frame input: overlay repeats its last frame to the end of the clip.
    parts.push(`[${o.logoInput}:v]scale=${lw}:-2,format=rgba,colorchannelmixer=aa=${opacity.toFixed(2)}[logo]`);
    parts.push(`[${v}][logo]overlay=x=${x}:y=${y}:format=auto,format=yuv420p[vlogo]`);
    v = "vlogo";
  }
  const times = cardTimes(brand);
  if (!times.before && !times.after) return { v, a: o.a };
  const font = files.font ?? (existsSync(DEFAULT_CARD_FONT) ? DEFAULT_CARD_FONT : undefined);
  const fontArg = font ? `fontfile=${escapeFilterValue(font)}` : "font=Sans";
  const card = (name: "intro" | "outro", seconds: number) => {
    const c = brand![name]!; // cardTimes gave it a length, so it is there
    const { size, lines } = cardLines(c, W, H);
    const files = o.files?.[name] ?? [];
    const lh = Math.round(size * 1.3);
    const top = Math.round((H - lh * lines.length) / 2);
    const texts = files.map(
      (f, i) =>
        "," +
        [
          `drawtext=${fontArg}`,
          `textfile=${escapeFilterValue(f)}`,
          "expansion=none",
          `fontsize=${size}`,
          `fontcolor=${hex(brand!.colours?.primary, "#ffffff")}`,
          "x=(w-text_w)/2",
          `y=${top + i * lh}`,
        ].join(":"),
    );
    parts.push(
      `color=c=${hex(brand!.colours?.background, "#111827")}:s=${W}x${H}:r=${o.fps}:d=${seconds.toFixed(3)},` +
        `format=yuv420p${texts.join("")},setsar=1[${name}v]`,
    );
    // Room tone, not digital silence: a card that drops the sound to nothing reads as a glitch.
    // Pink noise at about −50 dBFS sits under any speech and far below the loudness gate.
    parts.push(
      `anoisesrc=r=48000:c=pink:a=0.003:seed=7:d=${seconds.toFixed(3)},` +
        `atrim=duration=${seconds.toFixed(3)},${STEREO_48K}[${name}a]`,
    );
    return `[${name}v][${name}a]`;
  };
  const lengths = cardLengths(brand);
  const first = introFirst(brand);
  const labels: string[] = [];
  if (first && lengths.intro) labels.push(card("intro", lengths.intro));
  parts.push(`[${v}]format=yuv420p,setsar=1[vmain];[${o.a}]${STEREO_48K}[amain]`);
  labels.push("[vmain][amain]");
  // Hook first: the clip opens on its own picture, and the intro card plays after it, then the outro.
  if (!first && lengths.intro) labels.push(card("intro", lengths.intro));
  if (lengths.outro) labels.push(card("outro", lengths.outro));
  parts.push(`${labels.join("")}concat=n=${labels.length}:v=1:a=1[vbrand][abrand]`);
  return { v: "vbrand", a: "abrand" };
}

/** The part of a kit snapshot the render plan keeps. */
export function planBrand(b: BrandSnapshot): PlanBrand {
  return {
    colours: b.colours,
    ...(b.logo ? { logo: b.logo } : {}),
    ...(b.intro ? { intro: b.intro } : {}),
    ...(b.outro ? { outro: b.outro } : {}),
    ...(b.font ? { font: b.font } : {}),
  };
}

/**
 * The plan with the run's own kit snapshot, when the run has one: a restyle's job carries the
 * kit as it is now (its files held by the run's input), so the logo and cards follow the same
 * kit as the captions' colours. Without one (CLI, watch folder, older runs) the plan's stays.
 */
export function withRunBrand<P extends { brand?: PlanBrand }>(
  plan: P | undefined,
  brand: BrandSnapshot | undefined,
): P | undefined {
  return plan && brand && typeof brand === "object" && brand.colours ? { ...plan, brand: planBrand(brand) } : plan;
}
