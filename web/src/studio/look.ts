/**
 * A clip's look as the API takes it (exportClips and restyleClip bodies; GET /me `defaults`): the
 * choices offered for each field, with the words the pages show for them.
 */
import type { ClipLook } from "../types";

type Options = ReadonlyArray<readonly [string, string]>;

export const SIZES: Options = [
  ["small", "Small"],
  ["medium", "Medium"],
  ["large", "Large"],
  ["extra_large", "Extra large"],
];
export const POSITIONS: Options = [
  ["top", "Top"],
  ["middle", "Middle"],
  ["lower", "Lower third"],
  ["bottom", "Bottom"],
];
export const ASPECTS: Options = [
  ["9:16", "9:16 vertical"],
  ["1:1", "1:1 square"],
  ["4:5", "4:5 portrait"],
  ["16:9", "16:9 landscape"],
];
export const FITS: Options = [
  ["fill", "Fill the frame"],
  ["whole", "Whole picture"],
];
export const LAYOUTS: Options = [
  ["auto", "Automatic"],
  ["follow", "Follow the speaker"],
  ["split", "Split screen"],
  ["whole", "Whole picture"],
];
export const BACKGROUNDS: Options = [
  ["blur", "Blurred picture"],
  ["black", "Black"],
  ["white", "White"],
  ["gray", "Gray"],
  ["navy", "Navy"],
  ["dark", "Dark gradient"],
];

export const CENSORS: Options = [
  ["off", "Off"],
  ["mask", "Mask (f***)"],
  ["bleep", "Mask and bleep"],
];
/** Emphasis and emoji are booleans in the API; the form holds them as "on"/"off". */
export const EMPHASES: Options = [
  ["on", "Numbers, key words"],
  ["off", "Off"],
];
export const EMOJIS: Options = [
  ["on", "After key words"],
  ["off", "Off"],
];
export const onOff = (v: boolean | undefined, fallback: boolean) => ((v ?? fallback) ? "on" : "off");

/** The look clipd itself uses, for a page that could not read the account's defaults. */
export const SERVICE_LOOK: ClipLook = {
  style: "bold-punch",
  caption_size: "medium",
  caption_position: "bottom",
  hook_title: false,
  fit: "fill",
  background: "dark",
  aspect_ratio: "9:16",
  censor: "off",
  emphasis: true,
  emoji: false,
};

export const labelOf = (options: Options, value: string) => options.find(([v]) => v === value)?.[1] ?? value;

export function hookWords(h: ClipLook["hook_title"]): string {
  return h === true ? "The clip's title" : h === false ? "Off" : `“${h}”`;
}

/** The hook title form's three choices back to the API's value; own words need some words. */
export function hookValue(mode: string, words: string): boolean | string | null {
  if (mode === "title") return true;
  if (mode === "off") return false;
  const w = words.trim();
  return w ? w.slice(0, 120) : null;
}

/** A look as lines of "Field: value" for a summary list. */
export function describeLook(look: ClipLook, styleName: (id: string) => string): Array<[string, string]> {
  return [
    ["Caption style", styleName(look.style)],
    ["Caption size", labelOf(SIZES, look.caption_size)],
    ["Caption position", labelOf(POSITIONS, look.caption_position)],
    ["Hook title", hookWords(look.hook_title)],
    ["Shape", labelOf(ASPECTS, look.aspect_ratio ?? "9:16")],
    ["Fit", labelOf(FITS, look.fit)],
    ["Camera", labelOf(LAYOUTS, look.layout ?? "auto")],
    ["Background", labelOf(BACKGROUNDS, look.background)],
    ["Profanity", labelOf(CENSORS, look.censor ?? "off")],
    ["Emphasis", labelOf(EMPHASES, onOff(look.emphasis, true))],
    ["Emoji", labelOf(EMOJIS, onOff(look.emoji, false))],
  ];
}
