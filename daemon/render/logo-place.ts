/**
 * Where a brand kit's logo sits on a W×H frame (brand-graph.ts draws it there), for the layouts
 * that must keep clear of it: the audio template's cover and text (audio-template.ts) and the
 * poster's title band (plugins/poster). The logo's height is not known before it is drawn, so
 * its box is taken as square: no logo a kit accepts is taller than it is wide by much, and a wide
 * one only leaves more room.
 */
import type { LogoCorner } from "./brand.js";

export interface LogoPlace {
  corner: LogoCorner;
  x: number;
  y: number;
  w: number;
  h: number;
  /** The margin between the logo and the frame's edges (pixels). */
  margin: number;
}

const even = (v: number) => Math.round(v / 2) * 2;

/** The logo's width as drawn: `size` of the frame's width, 0.03–0.5 (0.15 when unset). */
export const logoWidth = (W: number, size: unknown) => even(W * Math.min(0.5, Math.max(0.03, Number(size) || 0.15)));
/** The space between the logo and the frame's edges. */
export const logoMargin = (W: number, H: number) => Math.round(Math.min(W, H) * 0.04);

export function logoPlace(
  W: number,
  H: number,
  logo: { corner: LogoCorner; size?: number } | undefined,
): LogoPlace | undefined {
  if (!logo) return undefined;
  const w = logoWidth(W, logo.size);
  const margin = logoMargin(W, H);
  const left = logo.corner.endsWith("left");
  const top = logo.corner.startsWith("top");
  return { corner: logo.corner, w, h: w, margin, x: left ? margin : W - margin - w, y: top ? margin : H - margin - w };
}
