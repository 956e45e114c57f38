/**
 * What the poster stage draws: where the hook's first word is spoken, and the title band (an SVG
 * that sharp lays over the frame). Kept apart from the stage so both can be read and tested alone.
 */
import { breakLines } from "../../daemon/render/captions.js";
import type { LogoPlace } from "../../daemon/render/logo-place.js";

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/**
 * The time on the clip's timeline just after the hook's first word begins (50 ms in, or the word's
 * middle when it is shorter), so its caption is on screen. The hook is found by its first three
 * words, then its first word alone; without a match, the clip's first word; without words, 0.
 */
export function hookStart(words: Array<{ text: string; start: number; end: number }>, hook?: string | null): number {
  const ws = words.filter((w) => Number.isFinite(w.start) && Number.isFinite(w.end) && norm(w.text));
  if (!ws.length) return 0;
  const want = (hook ?? "").split(/\s+/).map(norm).filter(Boolean);
  const matches = (n: number) =>
    ws.findIndex((_, i) => want.slice(0, n).every((t, k) => ws[i + k] && norm(ws[i + k]!.text) === t));
  let i = want.length >= 3 ? matches(3) : -1;
  if (i < 0 && want.length) i = matches(1);
  const w = ws[Math.max(0, i)]!;
  return w.start + Math.min(0.05, Math.max(0, w.end - w.start) / 2);
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** "#RRGGBB" or "#RRGGBBAA" as an SVG colour and opacity (librsvg does not read 8-digit hex everywhere). */
export function svgColour(hex: string): { colour: string; opacity: number } {
  const m = /^#([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(hex.trim());
  if (!m) return { colour: "#000000", opacity: 1 };
  return { colour: `#${m[1]}`, opacity: m[2] ? +(parseInt(m[2], 16) / 255).toFixed(3) : 1 };
}

export interface TitleLook {
  width: number;
  height: number;
  box: string;
  text: string;
  accent: string;
  font: string;
  uppercase?: boolean;
  /** A logo in a top corner (where it is drawn): the band keeps clear of it, still near the top. */
  logo?: LogoPlace;
}

/**
 * The span the band may use across the frame, and its top. Without a logo in a top corner: the
 * middle 0.9 of the width, from 7% of the height. With one, the band stays in the top part (a
 * band low in the frame lands on the speaker's chin, issue 39): beside the logo when that leaves
 * 0.6 of the width, else just below it.
 */
export function bandPlace(l: Pick<TitleLook, "width" | "height" | "logo">): { x0: number; x1: number; top: number } {
  const top = Math.round(l.height * 0.07);
  const full = { x0: Math.round(l.width * 0.05), x1: Math.round(l.width * 0.95), top };
  const m = l.logo;
  if (!m || !m.corner.startsWith("top") || m.y + m.h <= top) return full;
  const gap = m.margin;
  const beside = m.corner.endsWith("right")
    ? { x0: m.margin, x1: m.x - gap }
    : { x0: m.x + m.w + gap, x1: l.width - m.margin };
  if (beside.x1 - beside.x0 >= l.width * 0.6) return { ...beside, top };
  return { ...full, top: m.y + m.h + gap };
}

/**
 * The title band: up to three lines of bold text on a rounded box in the top part of the frame
 * (where the hook box sits in a render), an accent bar under the text. Sizes follow the frame's
 * short side, so a square or landscape poster gets the same proportions as a vertical one.
 */
export function titleSvg(title: string, l: TitleLook): Buffer {
  const short = Math.min(l.width, l.height);
  const font = Math.round(short * 0.062);
  const lineH = Math.round(font * 1.22);
  // Bold capitals run wider than lower case: the width of a character is estimated for each.
  const charW = font * (l.uppercase ? 0.74 : 0.6);
  const span = bandPlace(l);
  const spanW = span.x1 - span.x0;
  const maxChars = Math.max(8, Math.floor((spanW - 2 * font * 0.55) / charW));
  const text = l.uppercase ? title.toUpperCase() : title;
  let lines = breakLines(text.split(/\s+/).filter(Boolean), maxChars, 3).map((ws) => ws.join(" "));
  if (lines.length > 3)
    lines = [
      ...lines.slice(0, 2),
      `${lines
        .slice(2)
        .join(" ")
        .slice(0, maxChars - 1)}…`,
    ];
  const pad = Math.round(font * 0.55);
  const widest = Math.min(spanW, Math.max(...lines.map((s) => s.length)) * charW + 2 * pad);
  const boxH = lines.length * lineH + 2 * pad + Math.round(font * 0.3);
  const top = span.top;
  const mid = Math.round((span.x0 + span.x1) / 2);
  const left = Math.round(mid - widest / 2);
  const box = svgColour(l.box);
  const ink = svgColour(l.text);
  const accent = svgColour(l.accent);
  const rows = lines
    .map(
      (s, i) =>
        `<text x="${mid}" y="${top + pad + Math.round(font * 0.9) + i * lineH}" text-anchor="middle" ` +
        `font-family="${xml(l.font)}" font-weight="bold" font-size="${font}" fill="${ink.colour}" ` +
        `fill-opacity="${ink.opacity}">${xml(s)}</text>`,
    )
    .join("");
  const bar =
    `<rect x="${Math.round(mid - widest * 0.2)}" y="${top + boxH - Math.round(font * 0.35)}" ` +
    `width="${Math.round(widest * 0.4)}" height="${Math.max(3, Math.round(font * 0.12))}" ` +
    `rx="2" fill="${accent.colour}" fill-opacity="${accent.opacity}"/>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}">` +
    `<rect x="${left}" y="${top}" width="${Math.round(widest)}" height="${boxH}" ` +
    `rx="${Math.round(font * 0.3)}" fill="${box.colour}" fill-opacity="${box.opacity}"/>${rows}${bar}</svg>`;
  return Buffer.from(svg);
}
