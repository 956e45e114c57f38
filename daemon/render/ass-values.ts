/**
 * The caption look's plain values and ASS's own spellings of them: the sizes and positions a
 * caption may take (and a request's step from one to the next), ASS colours, times and escapes.
 * ass.ts builds the file from them; the option schemas and the editor read the lists.
 */

export type CaptionSize = "small" | "medium" | "large" | "extra_large";
export type CaptionPosition = "top" | "middle" | "lower" | "bottom";
export type Animation = "none" | "highlight" | "pop" | "karaoke";

export const SIZES: CaptionSize[] = ["small", "medium", "large", "extra_large"];
export const POSITIONS: CaptionPosition[] = ["top", "middle", "lower", "bottom"];

/** Escapes caption text: braces would start override blocks and a backslash could form \N or \h. */
export function escapeAssText(text: string): string {
  return text.replace(/\r?\n|\r/g, " ").replace(/[\\{}]/g, (c) => (c === "\\" ? "\\\u2060" : `\\${c}`));
}

/** "#RRGGBB[AA]" → "&HAABBGGRR" (ASS alpha: 00 opaque, FF transparent). */
export function assColour(css: string): string {
  const m = /^#?([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(css.trim());
  if (!m) throw new TypeError(`colour "${css}" is not #RRGGBB or #RRGGBBAA`);
  const [r, g, b] = [0, 2, 4].map((i) => m[1]!.slice(i, i + 2));
  const alpha = (255 - parseInt(m[2] ?? "ff", 16)).toString(16).padStart(2, "0");
  return `&H${alpha}${b}${g}${r}`.toUpperCase();
}

export function assTime(seconds: number): string {
  const cs = Math.max(0, Math.round(seconds * 100));
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(cs % 100).padStart(2, "0")}`;
}

/** Applies a size request: an absolute size, or "smaller"/"bigger" one step from `current`. */
export function stepSize(current: CaptionSize, request?: string): CaptionSize {
  const i = SIZES.indexOf(current);
  // Both indices are clamped into [0, SIZES.length - 1].
  if (request === "smaller") return SIZES[Math.max(0, i - 1)]!;
  if (request === "bigger") return SIZES[Math.min(SIZES.length - 1, i + 1)]!;
  return (SIZES as string[]).includes(request ?? "") ? (request as CaptionSize) : current;
}

/** Applies a position request: an absolute position, or "up"/"down" one step from `current`. */
export function stepPosition(current: CaptionPosition, request?: string): CaptionPosition {
  const i = POSITIONS.indexOf(current);
  // Both indices are clamped into [0, POSITIONS.length - 1].
  if (request === "up") return POSITIONS[Math.max(0, i - 1)]!;
  if (request === "down") return POSITIONS[Math.min(POSITIONS.length - 1, i + 1)]!;
  return (POSITIONS as string[]).includes(request ?? "") ? (request as CaptionPosition) : current;
}
