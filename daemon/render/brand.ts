/**
 * A brand kit as the render stages see it: a snapshot taken when the clip job is made, carried in
 * the run's input as `brand`, so that editing or deleting a kit later never changes a render that
 * is queued or being retried. The account's kits live in the database (daemon/brand/); this file
 * is only the shape the stages read, kept here so that kit storage and the renderers share it.
 */

export type LogoCorner = "top-left" | "top-right" | "bottom-left" | "bottom-right";
export const LOGO_CORNERS: LogoCorner[] = ["top-left", "top-right", "bottom-left", "bottom-right"];

/**
 * Where the intro card plays (issue 39): `hook_first` (the default) opens the clip on its picture
 * with the hook, the platforms' first frame and first second, and plays the card after the clip
 * (before the outro); `card_first` plays it before the clip.
 */
export const INTRO_ORDERS = ["hook_first", "card_first"] as const;
export type IntroOrder = (typeof INTRO_ORDERS)[number];

export interface BrandCard {
  /** Title text drawn on the brand background. */
  text: string;
  /** 1–2 seconds. */
  seconds: number;
  /** The intro card's place (an outro has none); absent: hook_first. */
  order?: IntroOrder;
}

export interface BrandSnapshot {
  id: string;
  name: string;
  /** An uploaded TTF/OTF in storage, with the family name libass must be told (read by fontkit). */
  font?: { key: string; family: string; file_name: string };
  /** "#RRGGBB" each. primary: caption text; accent: the active word and emphasis; background: boxes, cards, pads. */
  colours: { primary: string; accent: string; background: string };
  /** A PNG (SVGs are rasterised to PNG when the kit is saved) in storage. size: fraction of the frame's width. */
  logo?: { key: string; corner: LogoCorner; size: number; opacity: number };
  intro?: BrandCard;
  outro?: BrandCard;
  /** Cover art for audio episodes (an image in storage), and the show's name drawn on the audio template. */
  cover_key?: string;
  show_name?: string;
}
