/**
 * Where things go on an audio episode's clip, in each shape: the cover art, the show's name, the
 * title and the waveform. The still (plugins/cut/background.ts) and the render graph
 * (clip-graph.ts) both read this, so the waveform lands in the space the still leaves for it.
 *
 * Tall frames (9:16) stack cover, names and waveform; wider ones (4:5, 1:1, 16:9) put the cover
 * beside the names with the waveform across below. Everything stays above 0.68 of the height,
 * where bottom captions begin.
 */

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

const even = (v: number) => Math.round(v / 2) * 2;

export function audioLayout(W: number, H: number): AudioLayout {
  const short = Math.min(W, H);
  const showSize = Math.round(short * 0.04);
  const titleSize = Math.round(short * 0.06);
  const waveBottom = Math.round(H * 0.68);
  if (H / W >= 1.5) {
    const c = Math.round(Math.min(W * 0.52, H * 0.3));
    const cover = { x: Math.round((W - c) / 2), y: Math.round(H * 0.06), w: c, h: c };
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
      wave: { x: even(W * 0.08), y: even(waveTop), w: even(W * 0.84), h: even(waveBottom - waveTop) },
    };
  }
  const margin = Math.round(short * 0.06);
  const c = Math.round(H * 0.34);
  const cover = { x: margin, y: margin, w: c, h: c };
  const tx = margin + c + Math.round(short * 0.05);
  const tw = W - margin - tx;
  const waveTop = Math.round(H * 0.44);
  return {
    cover,
    showSize,
    titleSize,
    titleLines: 3,
    text: { x: tx, y: margin + Math.round(c * 0.12), w: tw, h: c, align: "start" },
    titleChars: Math.floor(tw / (titleSize * 0.6)),
    wave: { x: even(margin), y: even(waveTop), w: even(W - 2 * margin), h: even(waveBottom - waveTop) },
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
 * (the title once). Other words (an export's own `hook_title: "…"`) sit at the top of the waveform
 * band, below the cover and the title: `top` is the box's top edge in pixels, never on the cover.
 */
export function audioHook(
  text: string | undefined,
  title: string | undefined,
  W: number,
  H: number,
): { text?: string; top: number } {
  const top = audioLayout(W, H).wave.y;
  if (!text?.trim() || (title && words(text) === words(title))) return { top };
  return { text, top };
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
