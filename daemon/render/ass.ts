/**
 * ASS subtitle building for burned-in captions (libass renders it through ffmpeg's `ass` filter).
 *
 * We break lines ourselves (WrapStyle 2: libass never wraps) so that a word-by-word animation keeps
 * the same layout in every event of a cue; a reflow between words would make the text jump. Sizes
 * and margins are given for a 1080×1920 frame and scaled to the real one (by area, so other shapes read alike); the
 * margins keep text out
 * of the areas that short-video apps cover with their own buttons.
 *
 * The style header, the line layout and the per-word events must agree on the same sizes and
 * margins, so they are kept in one file; the grouping of words into cues is in captions.ts.
 * Emphasised words (numbers, key phrases) are drawn in the style's highlight colour, which a brand
 * kit sets to its accent (styles.ts, brandStyle).
 */
import {
  assColour,
  assTime,
  escapeAssText,
  type CaptionPosition,
  type CaptionSize,
  type Animation,
} from "./ass-values.js";
import { breakLines, toAssCues, type CaptionWord } from "./captions.js";

export { toAssCues, type AssCue as Cue, type CaptionWord } from "./captions.js";

export * from "./ass-values.js";

/** One entry of config/styles.yaml. Colours are "#RRGGBB" or "#RRGGBBAA" (AA = opacity). */
export interface CaptionStyle {
  id: string;
  name: string;
  description: string;
  font: string;
  bold?: boolean;
  uppercase?: boolean;
  /** Font size in pixels on a 1920-pixel-high frame, per caption_size. */
  sizes: Record<CaptionSize, number>;
  colour: string;
  outline_colour: string;
  outline: number;
  shadow?: number;
  shadow_colour?: string;
  /** Draw an opaque box behind the text instead of an outline (box colour = outline_colour). */
  box?: boolean;
  highlight: string;
  /** Word-by-word effect when highlight is on. */
  animation: Animation;
  /** Most words shown at once (short, punchy cues for the animated styles). */
  max_words?: number;
  hook_colour?: string;
  hook_background?: string;
}

export interface AssOptions {
  width: number;
  height: number;
  style: CaptionStyle;
  size: CaptionSize;
  position: CaptionPosition;
  /** Animate word by word with the style's animation (a static style falls back to "highlight"). */
  highlight: boolean;
  /** Title box text shown at the top for the first seconds; empty or undefined for none. */
  hookTitle?: string;
  hookSeconds?: number;
  /**
   * The band the hook box is centred in (pixels), at most two lines, its size brought down to fit;
   * audio clips give the waveform's band (audio-template.ts). Without it the box hangs from 8% of
   * the height.
   */
  hookBand?: { top: number; height: number };
  duration: number;
}

function _styleLine(
  name: string,
  s: CaptionStyle,
  o: { size: number; primary: string; secondary: string; align: number; marginV: number; marginLR: number },
): string {
  const outline = s.box ? Math.max(8, s.outline) : s.outline;
  const back = assColour(s.shadow_colour ?? "#00000080");
  const fields = [
    name,
    s.font,
    o.size,
    o.primary,
    o.secondary,
    assColour(s.outline_colour),
    back,
    s.bold === false ? 0 : -1,
    0,
    0,
    0,
    100,
    100,
    0,
    0,
    s.box ? 3 : 1,
    outline,
    s.shadow ?? 0,
    o.align,
    o.marginLR,
    o.marginLR,
    o.marginV,
    1,
  ];
  return `Style: ${fields.join(",")}`;
}

/**
 * A first caption that starts less than this into the clip is shown from frame 0 instead (and the
 * hook title needs no fade-in): a clip that opens on an empty frame loses the viewer who scrolls past.
 */
const FIRST_CUE_FROM_ZERO_S = 1;

/** The hook box's box padding (the Hook style's outline, drawn as an opaque box) and line height in ems. */
const HOOK_PAD = 14;
const HOOK_LINE = 1.2;

/**
 * The hook's lines, size and top margin: hung from 8% of the height in up to three lines, or
 * centred in `hookBand` in up to two, the size brought down until they fit the band.
 */
function hookPlace(o: AssOptions, marginLR: number, full: number): { lines: string[]; size: number; marginV: number } {
  const text = o.hookTitle?.trim();
  const band = o.hookBand;
  const linesAt = (size: number, most: number) =>
    text
      ? breakLines(text.split(/\s+/), Math.max(8, Math.floor((o.width - 2 * marginLR) / (size * 0.6))), most).map((l) =>
          l.join(" "),
        )
      : [];
  if (!band) return { lines: linesAt(full, 3), size: full, marginV: Math.round(o.height * 0.08) };
  let size = full;
  let lines = linesAt(size, 2);
  while (size > 12 && lines.length * size * HOOK_LINE + 2 * HOOK_PAD > band.height) {
    size = Math.floor(size * 0.9);
    lines = linesAt(size, 2);
  }
  const boxH = lines.length * size * HOOK_LINE + 2 * HOOK_PAD;
  return { lines, size, marginV: Math.round(band.top + Math.max(0, (band.height - boxH) / 2) + HOOK_PAD) };
}

/** Builds the whole ASS document for one clip. */
export function buildAss(words: CaptionWord[], o: AssOptions): string {
  // Sizes scale with the frame's area, not its height alone: a 1920×1080 or 1080×1080 frame gets
  // 0.75 of the 9:16 sizes (by height it would get 0.56, small on a landscape screen).
  const k = Math.sqrt((o.width * o.height) / (1080 * 1920));
  const s = o.style;
  const size = Math.round(s.sizes[o.size] * k);
  const marginLR = Math.round(o.width * 0.09);
  const place: Record<CaptionPosition, [number, number]> = {
    top: [8, Math.round(o.height * 0.21)],
    middle: [5, 0],
    lower: [2, Math.round(o.height * 0.3)],
    bottom: [2, Math.round(o.height * 0.2)],
  };
  const [align, marginV] = place[o.position];
  const animation: Animation = o.highlight ? (s.animation === "none" ? "highlight" : s.animation) : "none";
  const base = assColour(s.colour);
  const hi = assColour(s.highlight);
  // Average glyph advance is about 0.58 em for bold sans; capitals are wider.
  const maxChars = Math.max(8, Math.floor((o.width - 2 * marginLR) / (size * (s.uppercase ? 0.68 : 0.58))));
  const hook = hookPlace(o, marginLR, Math.round(Math.min(s.sizes.large, 84) * k));
  const hookSize = hook.size;
  const styles = [
    _styleLine("Caption", s, { size, primary: base, secondary: base, align, marginV, marginLR }),
    // Karaoke sweeps from SecondaryColour to PrimaryColour.
    _styleLine("Karaoke", s, { size, primary: hi, secondary: base, align, marginV, marginLR }),
    _styleLine(
      "Hook",
      { ...s, box: true, outline: 14, shadow: 0, outline_colour: s.hook_background ?? "#000000D0" },
      {
        size: hookSize,
        primary: assColour(s.hook_colour ?? "#FFFFFF"),
        secondary: base,
        align: 8,
        marginV: hook.marginV,
        marginLR,
      },
    ),
  ];
  const events: string[] = [];
  const add = (start: number, end: number, style: string, text: string, layer = 0) => {
    if (end - start < 0.01) return;
    events.push(`Dialogue: ${layer},${assTime(start)},${assTime(end)},${style},,0,0,0,,${text}`);
  };
  const shown = (w: CaptionWord) => escapeAssText((s.uppercase ? w.text.toUpperCase() : w.text).trim());
  const cues = toAssCues(words, {
    maxChars,
    maxWords: animation === "none" ? undefined : s.max_words,
    uppercase: s.uppercase,
  });
  // Frame 0 is the clip's first impression: a first cue that starts within a second shows from it.
  if (cues[0] && cues[0].start > 0 && cues[0].start < FIRST_CUE_FROM_ZERO_S) cues[0] = { ...cues[0], start: 0 };
  for (const cue of cues) {
    const render = (fmt: (w: CaptionWord, i: number) => string) => {
      let i = 0;
      return cue.lines.map((line) => line.map((w) => fmt(w, i++)).join(" ")).join("\\N");
    };
    // An emphasised word wears the highlight colour; the colour after it returns to `back`.
    const lit = (w: CaptionWord, tag: "1c" | "2c" = "1c", back = base) =>
      w.emphasis ? `{\\${tag}${hi}}${shown(w)}{\\${tag}${back}}` : shown(w);
    if (animation === "none") {
      add(
        cue.start,
        cue.end,
        "Caption",
        render((w) => lit(w)),
      );
    } else if (animation === "karaoke") {
      let t = cue.start;
      add(
        cue.start,
        cue.end,
        "Karaoke",
        render((w) => {
          const lead = Math.max(0, Math.round((w.start - t) * 100));
          const dur = Math.max(1, Math.round((w.end - Math.max(t, w.start)) * 100));
          t = Math.max(t, w.start) + dur / 100;
          // Before its sweep an emphasised word shows the highlight colour already (SecondaryColour).
          return `${lead ? `{\\k${lead}}` : ""}{\\kf${dur}}${lit(w, "2c")}`;
        }),
      );
    } else {
      cue.words.forEach((active, ai) => {
        const start = ai === 0 ? cue.start : active.start;
        const end = ai + 1 < cue.words.length ? cue.words[ai + 1]!.start : cue.end;
        add(
          start,
          end,
          "Caption",
          render((w, i) => {
            if (i === ai) {
              const pop = animation === "pop" ? "\\fscx118\\fscy118\\t(0,120,\\fscx100\\fscy100)" : "";
              return `{\\1c${hi}${pop}}${shown(w)}{\\1c${base}\\fscx100\\fscy100}`;
            }
            // Pop reveals words as they are spoken; the hidden ones still take their place.
            return animation === "pop" && i > ai ? `{\\alpha&HFF&}${shown(w)}{\\alpha&H00&}` : lit(w);
          }),
        );
      });
    }
  }
  if (hook.lines.length) {
    const lines = hook.lines.map((l) => escapeAssText(l));
    add(0, Math.min(o.hookSeconds ?? 3, o.duration), "Hook", `{\\fad(0,250)}${lines.join("\\N")}`, 1);
  }
  return [
    "[Script Info]",
    "; Generated by clipd",
    "ScriptType: v4.00+",
    `PlayResX: ${o.width}`,
    `PlayResY: ${o.height}`,
    "WrapStyle: 2",
    "ScaledBorderAndShadow: yes",
    "YCbCr Matrix: TV.709",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, " +
      "BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, " +
      "Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    ...styles,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
    ...events,
    "",
  ].join("\n");
}
