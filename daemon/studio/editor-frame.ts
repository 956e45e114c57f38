/**
 * What the render adds around the captions, for the editor's preview (issue 36): the brand kit's
 * logo and its intro and outro cards (brand-graph.ts: the same corner, size, lines and seconds), and
 * for an audio episode the still the cut draws (audio-template.ts: the cover, the show's name, the
 * title, the waveform's band) with the hook box moved below the cover as caption-burn moves it.
 * The browser draws these from the numbers here, so the preview's clock and layout are the render's.
 */
import { audioLayout, wrapText, type AudioLayout } from "../render/audio-template.js";
import type { BrandSnapshot } from "../render/brand.js";
import { cardLines, cardTimes } from "../render/brand-graph.js";
import type { Queryable } from "../store/db.js";

/** A card as the browser draws it: the kit's background and primary colour, its lines, centred. */
export interface FrameCard {
  seconds: number;
  lines: string[];
  size: number;
  background: string;
  colour: string;
}

export interface PreviewFrame {
  /** Seconds of intro card before the clip and outro card after it. */
  before: number;
  after: number;
  logo?: { key: string; corner: string; size: number; opacity: number };
  intro?: FrameCard;
  outro?: FrameCard;
  /** Only for an audio episode: the still's parts, laid out for this frame. */
  audio?: {
    layout: AudioLayout;
    title_lines: string[];
    show_name?: string;
    cover_key?: string;
    colours?: { background: string; text: string; accent: string };
  };
}

const hex = (v: string | undefined, fallback: string) => (v && /^#[0-9a-fA-F]{6}$/.test(v) ? v : fallback);

function card(brand: BrandSnapshot, name: "intro" | "outro", seconds: number, W: number, H: number): FrameCard {
  const { size, lines } = cardLines(brand[name]!, W, H);
  return {
    seconds,
    lines,
    size,
    background: hex(brand.colours?.background, "#111827"),
    colour: hex(brand.colours?.primary, "#ffffff"),
  };
}

/** Whether the clip is drawn on the audio template: the cut's plan says so, else the episode has no picture. */
export const isAudioClip = (plan: { layout?: unknown } | undefined, kind: string | undefined) =>
  plan?.layout ? plan.layout === "audio" : kind === "audio";

export async function previewFrame(o: {
  db: Queryable;
  episodeId: string;
  brand?: BrandSnapshot;
  audio: boolean;
  title?: string;
  width: number;
  height: number;
}): Promise<PreviewFrame> {
  const { brand, width: W, height: H } = o;
  const times = cardTimes(brand);
  const frame: PreviewFrame = { before: times.before, after: times.after };
  if (brand?.logo) frame.logo = { ...brand.logo };
  if (brand && times.before) frame.intro = card(brand, "intro", times.before, W, H);
  // Hook first (the default), the intro card plays after the clip, before any outro: the preview's one
  // closing card holds all the seconds after the clip, in the outro's words where there is one.
  if (brand && times.after) frame.outro = card(brand, brand.outro?.text?.trim() ? "outro" : "intro", times.after, W, H);
  if (o.audio) {
    const layout = audioLayout(W, H, brand?.logo as Parameters<typeof audioLayout>[2]);
    const { rows } = await o.db.query(`select cover_key from episodes where id = $1`, [o.episodeId]);
    const coverKey: string | undefined = rows[0]?.cover_key ?? brand?.cover_key ?? undefined;
    frame.audio = {
      layout,
      title_lines: o.title ? wrapText(o.title, layout.titleChars, layout.titleLines) : [],
      ...(brand?.show_name?.trim() ? { show_name: brand.show_name.trim().toUpperCase() } : {}),
      ...(coverKey ? { cover_key: coverKey } : {}),
      ...(brand?.colours
        ? {
            colours: {
              background: hex(brand.colours.background, "#1f2937"),
              text: hex(brand.colours.primary, "#ffffff"),
              accent: hex(brand.colours.accent, "#d1d5db"),
            },
          }
        : {}),
    };
  }
  return frame;
}
