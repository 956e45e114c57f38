/**
 * Where things go on an audio episode's clip, in each shape: the cover art, the show's name, the
 * title, the waveform, and the hook box when the export gives its own words. The still
 * (plugins/cut/background.ts) and the render graph (clip-graph.ts) both read this, so the waveform
 * lands in the space the still leaves for it.
 *
 * Tall frames (9:16) stack cover, names and waveform; wider ones (4:5, 1:1, 16:9) put the cover
 * beside the names with the waveform across below. Everything stays above 0.68 of the height,
 * where bottom captions begin. Each element has one place (issue 39): a brand kit's logo in a top
 * corner keeps its corner (the cover moves down or to the other side, the text column stops short
 * of it), and a hook box takes the waveform's band while it shows, the waveform starting when it
 * goes, so nothing is drawn over anything else.
 */
import type { LogoCorner } from "./brand.js";
import { logoPlace, type LogoPlace } from "./logo-place.js";

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface AudioLayout {
  cover: Box;
  /** The column for the show's name and the title (their top and left; text is left-aligned when beside the cover). */
  text: Box & { align: "middle" | "start" };
  /** Font sizes in pixels. */
  showSize: number;
  titleSize: number;
  /** Most characters on one title line, and most lines. */
  titleChars: number;
  titleLines: number;
  wave: Box;
}

/** A kit's logo as the template needs it: its corner and size. */
export type LayoutLogo = { corner: LogoCorner; size?: number } | undefined;

const even = (v: number) => Math.round(v / 2) * 2;
const overlaps = (a0: number, a1: number, b0: number, b1: number) => a0 < b1 && b0 < a1;

export function audioLayout(W: number, H: number, logo?: LayoutLogo): AudioLayout {
  const short = Math.min(W, H);
  const showSize = Math.round(short * 0.04);
  const titleSize = Math.round(short * 0.06);
  const waveBottom = Math.round(H * 0.68);
  const mark = logo?.corner.startsWith("top") ? logoPlace(W, H, logo) : undefined;
  if (H / W >= 1.5) return tallLayout(W, H, { showSize, titleSize, waveBottom, mark });
  const margin = Math.round(short * 0.06);
  const gap = Math.round(short * 0.05);
  const c = Math.round(H * 0.34);
  // The cover takes the side away from a logo in a top-left corner; the text column lies between.
  const coverRight = mark?.corner === "top-left";
  const cover = { x: coverRight ? W - margin - c : margin, y: margin, w: c, h: c };
  let tx = coverRight ? margin : margin + c + gap;
  let tEnd = coverRight ? cover.x - gap : W - margin;
  let ty = margin + Math.round(c * 0.12);
  let titleLines = 3;
  let waveTop = Math.round(H * 0.44);
  if (mark && overlaps(tx, tEnd, mark.x, mark.x + mark.w)) {
    const [nx, nEnd] = coverRight ? [mark.x + mark.w + gap, tEnd] : [tx, mark.x - gap];
    // A column squeezed under 0.45 of the frame would break the title every word or two: it keeps
    // its width and starts below the logo instead, with two title lines, the waveform below them.
    // (A logo so large that the waveform would then lose its room squeezes the column after all.)
    const below = mark.y + mark.h + Math.round(gap / 2);
    const belowWave = below + Math.round(showSize * 1.5 + titleSize * 1.25 * 2 + gap / 2);
    if (nEnd - nx >= W * 0.45 || waveBottom - belowWave < H * 0.12) [tx, tEnd] = [nx, nEnd];
    else {
      ty = Math.max(ty, below);
      titleLines = 2;
      waveTop = Math.max(waveTop, belowWave);
    }
  }
  const tw = tEnd - tx;
  return {
    cover,
    showSize,
    titleSize,
    titleLines,
    text: { x: tx, y: ty, w: tw, h: Math.min(c, waveTop - ty), align: "start" },
    titleChars: Math.floor(tw / (titleSize * 0.6)),
    wave: {
      x: even(margin),
      y: even(waveTop),
      w: even(W - 2 * margin),
      h: even(Math.max(waveBottom - waveTop, H * 0.1)),
    },
  };
}

function tallLayout(
  W: number,
  H: number,
  o: { showSize: number; titleSize: number; waveBottom: number; mark?: LogoPlace },
): AudioLayout {
  const { showSize, titleSize, waveBottom, mark } = o;
  let c = Math.round(Math.min(W * 0.52, H * 0.3));
  let y = Math.round(H * 0.06);
  // A logo in a top corner that the cover would reach: the cover starts below it, smaller, so the
  // names and the waveform keep their places.
  if (mark && overlaps((W - c) / 2, (W + c) / 2, mark.x, mark.x + mark.w) && y < mark.y + mark.h) {
    const below = mark.y + mark.h + Math.round(H * 0.015);
    c = Math.max(Math.round(H * 0.12), c - (below - y));
    y = below;
  }
  const cover = { x: Math.round((W - c) / 2), y, w: c, h: c };
  const textTop = cover.y + c + Math.round(H * 0.03);
  const titleLines = 2;
  const waveTop = textTop + Math.round(showSize * 1.5 + titleSize * 1.25 * titleLines + H * 0.03);
  return {
    cover,
    showSize,
    titleSize,
    titleLines,
    text: { x: Math.round(W * 0.08), y: textTop, w: Math.round(W * 0.84), h: waveTop - textTop, align: "middle" },
    titleChars: Math.floor((W * 0.84) / (titleSize * 0.6)),
    wave: { x: even(W * 0.08), y: even(waveTop), w: even(W * 0.84), h: even(Math.max(waveBottom - waveTop, H * 0.08)) },
  };
}

const words = (t: string) =>
  t
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/**
 * The hook box of an audio clip. The still shows the clip's title under the cover for the whole
 * clip, larger than the box could and in the kit's colours, so a box repeating it is not drawn
 * (the title once). Other words (an export's own `hook_title: "…"`) take the waveform's band while
 * they show (`band`); the render starts the waveform when the box goes, so neither is drawn over
 * the other, and the still's title and cover stay clear.
 */
export function audioHook(
  text: string | undefined,
  title: string | undefined,
  W: number,
  H: number,
  logo?: LayoutLogo,
): { text?: string; band: Box } {
  const band = audioLayout(W, H, logo).wave;
  if (!text?.trim() || (title && words(text) === words(title))) return { band };
  return { text, band };
}

/** Wraps text into lines of about `max` characters; past `lines` lines the rest is elided. */
export function wrapText(text: string, max: number, lines: number): string[] {
  const out: string[] = [];
  let cur = "";
  for (const w of text.split(/\s+/).filter(Boolean)) {
    if (cur && (cur + " " + w).length > max) {
      out.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) out.push(cur);
  if (out.length > lines) return [...out.slice(0, lines - 1), `${out[lines - 1]}…`];
  return out;
}

/**
 * The waveform: a mirrored bar spectrum of the speech band (up to 4 kHz), levelled by dynaudnorm
 * so quiet speech still moves the bars and silence lets them fall. `colour` is "#RRGGBB". One bar per `bars` columns,
 * drawn small and scaled up without smoothing; the gaps between bars are keyed out.
 */
export function waveFilter(
  inLabel: string,
  outLabel: string,
  box: Box,
  o: { colour: string; fps: number; bars?: number },
): string {
  const bars = o.bars ?? 40;
  // Drawn white so the gaps can be keyed out whatever the colour, then painted in the colour.
  const rgb = /^#?([0-9a-f]{6})$/i.exec(o.colour)?.[1] ?? "ffffff";
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(rgb.slice(i, i + 2), 16));
  const w = Math.max(bars, Math.floor(box.w / bars) * bars);
  const half = even(box.h / 2);
  const gap = Math.max(2, Math.round((w / bars) * 0.3));
  const showfreqs = [
    `showfreqs=s=${bars}x${Math.max(8, Math.round(half / 4))}`,
    "mode=bar",
    "ascale=cbrt",
    "fscale=lin",
    "win_size=128",
    "averaging=1",
    `rate=${o.fps}`,
    "colors=white",
  ].join(":");
  const halfWave = [
    `[${inLabel}]aresample=8000`,
    "dynaudnorm=f=75:g=5",
    showfreqs,
    `scale=${w}:${half}:flags=neighbor`,
    `drawgrid=w=iw/${bars}:h=ih:t=${gap}:c=black@1`,
    "colorkey=black:0.05",
    `lutrgb=r=${r}:g=${g}:b=${b}`,
    `split[wu${outLabel}][wd${outLabel}]`,
  ].join(",");
  return [
    halfWave,
    `[wd${outLabel}]vflip[wf${outLabel}]`,
    `[wu${outLabel}][wf${outLabel}]vstack,format=rgba[${outLabel}]`,
  ].join(";");
}
