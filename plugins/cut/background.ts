/**
 * The still background of an audio episode's clip, made with sharp: the cover art when there is
 * one (filled to 9:16, darkened so captions stay readable), else a diagonal gradient in the chosen
 * colour with the clip title set in the upper third.
 */
import sharp from "sharp";

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

function _shade(hex: string, factor: number): string {
  const m = /^#?([0-9a-f]{6})/i.exec(hex);
  const n = m ? parseInt(m[1]!, 16) : 0x1f2937;
  const ch = [16, 8, 0].map((s) => Math.max(0, Math.min(255, Math.round(((n >> s) & 255) * factor))));
  return `#${ch.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** Wraps a title into lines of about `max` characters (at most 3; the rest is elided). */
function _wrap(title: string, max: number): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const w of title.split(/\s+/).filter(Boolean)) {
    if (cur && (cur + " " + w).length > max) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  if (lines.length > 3) return [...lines.slice(0, 2), `${lines[2]}…`];
  return lines;
}

export async function makeBackground(
  out: string,
  o: { width: number; height: number; colour: string; title?: string; image?: string },
): Promise<string> {
  const { width: W, height: H } = o;
  if (o.image) {
    await sharp(o.image)
      .resize(W, H, { fit: "cover", position: sharp.strategy.attention })
      .modulate({ brightness: 0.55 })
      .blur(2)
      .png()
      .toFile(out);
    return out;
  }
  const top = /^#?[0-9a-f]{6}/i.test(o.colour) ? (o.colour.startsWith("#") ? o.colour : `#${o.colour}`) : "#1f2937";
  const size = Math.round(W * 0.075);
  const lines = o.title ? _wrap(o.title, 18) : [];
  const text = lines
    .map((l, i) => `<text x="50%" y="${Math.round(H * 0.3) + i * Math.round(size * 1.25)}" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="${size}" fill="#ffffff" fill-opacity="0.92">${xml(l)}</text>`)
    .join("");
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${_shade(top, 1.25)}"/><stop offset="1" stop-color="${_shade(top, 0.45)}"/></linearGradient></defs>` +
    `<rect width="100%" height="100%" fill="url(#g)"/>${text}</svg>`;
  await sharp(Buffer.from(svg)).png().toFile(out);
  return out;
}

/** Colour names a user may give besides #RRGGBB (ffmpeg knows them all, sharp gets the hex). */
const NAMED: Record<string, string> = {
  black: "#000000", white: "#ffffff", gray: "#808080", grey: "#808080", darkgray: "#a9a9a9", silver: "#c0c0c0",
  red: "#ff0000", maroon: "#800000", orange: "#ffa500", yellow: "#ffff00", gold: "#ffd700", green: "#008000",
  lime: "#00ff00", teal: "#008080", navy: "#000080", blue: "#0000ff", purple: "#800080", pink: "#ffc0cb",
  brown: "#a52a2a", beige: "#f5f5dc",
  // The API's background "dark": the cut's own default fill (DEFAULT_BG in index.ts).
  dark: "#1f2937",
};

/** "#RRGGBB" for a hex colour or a known name; undefined for anything else. */
export function toHexColour(value: string): string | undefined {
  if (/^#[0-9a-fA-F]{6}$/.test(value)) return value.toLowerCase();
  return NAMED[value.toLowerCase()];
}
