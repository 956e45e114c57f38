/**
 * The still behind an audio episode's clip, made with sharp, laid out by the audio template
 * (daemon/render/audio-template.ts) for the clip's shape: the cover art (sharp, in its square, over a
 * blurred and darkened fill of itself), the show's name and the clip's title; the render graph puts
 * the moving waveform in the space left below them. Without cover art the fill is a gradient of the
 * background colour and the square shows the show's (or title's) initial.
 */
import sharp, { type OverlayOptions, type Sharp } from "sharp";
import { audioLayout, wrapText, type LayoutLogo } from "../../daemon/render/audio-template.js";

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const isHex = (v: string | undefined): v is string => !!v && /^#[0-9a-fA-F]{6}$/.test(v);

function _shade(hex: string, factor: number): string {
  const m = /^#?([0-9a-f]{6})/i.exec(hex);
  const n = m ? parseInt(m[1]!, 16) : 0x1f2937;
  const ch = [16, 8, 0].map((s) => Math.max(0, Math.min(255, Math.round(((n >> s) & 255) * factor))));
  return `#${ch.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

export interface BackgroundOptions {
  width: number;
  height: number;
  /** The fill's colour ("#RRGGBB"): the brand's background, else the `background` option. */
  colour: string;
  title?: string;
  showName?: string;
  /** Title text and the show's name ("#RRGGBB"); white and a light grey without a brand. */
  textColour?: string;
  accent?: string;
  /** Cover art on local disk. */
  image?: string;
  /** The brand kit's logo, whose corner the layout keeps clear. */
  logo?: LayoutLogo;
}

export async function makeBackground(out: string, o: BackgroundOptions): Promise<string> {
  const { width: W, height: H } = o;
  const L = audioLayout(W, H, o.logo);
  const colour = isHex(o.colour) ? o.colour : "#1f2937";
  const textColour = isHex(o.textColour) ? o.textColour : "#ffffff";
  const accent = isHex(o.accent) ? o.accent : "#d1d5db";
  const layers: OverlayOptions[] = [];
  let base: Sharp;
  if (o.image) {
    base = sharp(o.image)
      .resize(W, H, { fit: "cover", position: sharp.strategy.attention })
      .modulate({ brightness: 0.35, saturation: 0.45 })
      .blur(Math.max(8, Math.round(W / 60)));
    const cover = await sharp(o.image)
      .resize(L.cover.w, L.cover.h, { fit: "cover", position: sharp.strategy.attention })
      .png()
      .toBuffer();
    layers.push({ input: cover, left: L.cover.x, top: L.cover.y });
  } else {
    const initial = xml((o.showName ?? o.title ?? "").trim().charAt(0).toUpperCase());
    const c = L.cover;
    const tile =
      `<rect x="${c.x}" y="${c.y}" width="${c.w}" height="${c.h}" rx="${Math.round(c.w * 0.06)}" ` +
      `fill="${_shade(colour, 0.6)}" stroke="${accent}" stroke-opacity="0.5" ` +
      `stroke-width="${Math.max(2, Math.round(c.w * 0.01))}"/>` +
      (initial
        ? `<text x="${c.x + c.w / 2}" y="${c.y + c.h * 0.68}" text-anchor="middle" ` +
          `font-family="DejaVu Sans" font-weight="bold" font-size="${Math.round(c.h * 0.5)}" ` +
          `fill="${accent}">${initial}</text>`
        : "");
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">` +
      `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" ` +
      `stop-color="${_shade(colour, 1.25)}"/><stop offset="1" stop-color="${_shade(colour, 0.45)}"/>` +
      "</linearGradient></defs>" +
      `<rect width="100%" height="100%" fill="url(#g)"/>${tile}</svg>`;
    base = sharp(Buffer.from(svg));
  }
  layers.push({ input: Buffer.from(_textSvg(W, H, L, o, textColour, accent)), left: 0, top: 0 });
  // Flattened first: the fill must be a finished picture before the layers go on.
  const fill = await base.png().toBuffer();
  await sharp(fill).composite(layers).png().toFile(out);
  return out;
}

/** The show's name and the title, as an SVG layer over the whole frame. */
function _textSvg(
  W: number,
  H: number,
  L: ReturnType<typeof audioLayout>,
  o: BackgroundOptions,
  textColour: string,
  accent: string,
): string {
  const t = L.text;
  const x = t.align === "middle" ? W / 2 : t.x;
  const anchor = t.align;
  const parts: string[] = [];
  let y = t.y + L.showSize;
  if (o.showName?.trim()) {
    // Spaced capitals are about 0.82 em each: a name too long for the column is set smaller (down
    // to two thirds) before it is cut.
    const name = o.showName.trim().toUpperCase();
    const size = Math.max(Math.round(L.showSize * 0.66), Math.min(L.showSize, Math.floor(t.w / (name.length * 0.82))));
    const show = wrapText(name, Math.floor(t.w / (size * 0.82)), 1)[0] ?? "";
    parts.push(
      `<text x="${x}" y="${y}" text-anchor="${anchor}" font-family="DejaVu Sans" ` +
        `font-weight="bold" letter-spacing="${Math.round(size * 0.08)}" font-size="${size}" ` +
        `fill="${accent}">${xml(show)}</text>`,
    );
    y += Math.round(L.showSize * 0.5);
  }
  const lines = o.title ? wrapText(o.title, L.titleChars, L.titleLines) : [];
  for (const [i, line] of lines.entries()) {
    const ly = y + Math.round(L.titleSize * (1.15 + i * 1.25));
    parts.push(
      `<text x="${x}" y="${ly}" text-anchor="${anchor}" font-family="DejaVu Sans" ` +
        `font-weight="bold" font-size="${L.titleSize}" fill="${textColour}">${xml(line)}</text>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${parts.join("")}</svg>`;
}

/** Colour names a user may give besides #RRGGBB (ffmpeg knows them all, sharp gets the hex). */
const NAMED: Record<string, string> = {
  black: "#000000",
  white: "#ffffff",
  gray: "#808080",
  grey: "#808080",
  darkgray: "#a9a9a9",
  silver: "#c0c0c0",
  red: "#ff0000",
  maroon: "#800000",
  orange: "#ffa500",
  yellow: "#ffff00",
  gold: "#ffd700",
  green: "#008000",
  lime: "#00ff00",
  teal: "#008080",
  navy: "#000080",
  blue: "#0000ff",
  purple: "#800080",
  pink: "#ffc0cb",
  brown: "#a52a2a",
  beige: "#f5f5dc",
  // The API's background "dark": the cut's own default fill (DEFAULT_BG in index.ts).
  dark: "#1f2937",
};

/** "#RRGGBB" for a hex colour or a known name; undefined for anything else. */
export function toHexColour(value: string): string | undefined {
  if (/^#[0-9a-fA-F]{6}$/.test(value)) return value.toLowerCase();
  return NAMED[value.toLowerCase()];
}
