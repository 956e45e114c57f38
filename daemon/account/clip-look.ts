/**
 * A clip's look: the settings the account API lets a caller choose (style, caption_size,
 * caption_position, hook_title, fit, background, aspect_ratio, brand_kit, …, layout), always resolved to concrete
 * values.
 *
 * Why resolved here and not left to the stages: a restyle must change only what it names, but a
 * stage fills every option a run leaves out with its own default (ajv useDefaults), so an option
 * left out means "reset", not "keep". Every API job therefore spells its whole look out, computed
 * from the clip's current look and the request, and records it (jobs.options) for the next one.
 * Word highlighting is not a setting of its own: the chosen style's animation decides it.
 */
import { stepPosition, stepSize, type CaptionPosition, type CaptionSize } from "../render/ass.js";
import { DEFAULT_ASPECT, isAspect, type AspectRatio } from "../render/aspect.js";
import { loadStyles, type StyleCatalogue } from "../render/styles.js";
import { readClipDefaults, saveClipDefaults } from "./accounts.js";
import { CENSOR_MODES, type CensorMode } from "../render/censor.js";
import { DEFAULT_PACE, isPace, type Pace } from "../render/pace.js";
import { DEFAULT_LOUDNESS } from "../render/loudness.js";
import { LAYOUTS, type LayoutChoice } from "../render/camera.js";
import type { ClipLook, ClipRow } from "./episode-rows.js";
import type { Queryable } from "../store/db.js";
import { jsonColumn } from "../store/_columns.js";

export const LOOK_FIELDS = [
  "style",
  "caption_size",
  "caption_position",
  "hook_title",
  "hook_title_anyway",
  "fit",
  "background",
  "aspect_ratio",
  "brand_kit",
  "censor",
  "emphasis",
  "emoji",
  "pace",
  "loudness",
  "layout",
] as const;
export type LookField = (typeof LOOK_FIELDS)[number];
/** The fields the cut stage uses: a change to one of them cuts the clip again. */
// brand_kit too: the kit's cover art is the cut's still for audio clips. pace changes the pieces.
// layout: the camera's framing (render/camera.ts) is planned by the cut.
const CUT_FIELDS: LookField[] = ["fit", "background", "aspect_ratio", "brand_kit", "pace", "layout"];

export interface Look {
  style: string;
  caption_size: CaptionSize;
  caption_position: CaptionPosition;
  /** false: no title box; true: the clip's title; a string: those words. */
  hook_title: boolean | string;
  /** With hook_title true: draw the title even when its words were heard with low confidence (issue 39). */
  hook_title_anyway: boolean;
  fit: "fill" | "whole";
  background: string;
  aspect_ratio: AspectRatio;
  /** A brand kit id of the account (daemon/brand/), or null: none. */
  brand_kit: string | null;
  /** Clean captions (caption-burn): listed words masked or bleeped, emphasis of numbers and key phrases, emoji. */
  censor: CensorMode;
  emphasis: boolean;
  emoji: boolean;
  /** Which silences between words are cut out (daemon/render/pace.ts): natural, tight or off. */
  pace: Pace;
  /** Integrated loudness of the sound in LUFS, or "off" (caption-burn); a change renders again, without a cut. */
  loudness: Loudness;
  /** How the camera frames people with fit fill (render/camera.ts): auto, follow, split or whole. */
  layout: LayoutChoice;
}
export type Loudness = number | "off";
const isLoudness = (v: unknown): v is Loudness => v === "off" || (typeof v === "number" && Number.isFinite(v));
export interface LookChange {
  field: LookField;
  from: unknown;
  to: unknown;
}

/** "crop" is the older name of "fill": one spelling, so a rename is never reported as a change. */
const normalFit = (fit: string): Look["fit"] => (fit === "whole" ? "whole" : "fill");

/** The request's values over `base`; smaller/bigger and up/down step from base on the stage's ladders. */
export function resolveLook(base: Look, want: ClipLook): Look {
  return {
    style: want.style ?? base.style,
    caption_size: stepSize(base.caption_size, want.caption_size),
    caption_position: stepPosition(base.caption_position, want.caption_position),
    hook_title: want.hook_title ?? base.hook_title,
    hook_title_anyway: want.hook_title_anyway ?? base.hook_title_anyway ?? false,
    fit: normalFit(want.fit ?? base.fit),
    background: want.background ?? base.background,
    aspect_ratio: isAspect(want.aspect_ratio) ? want.aspect_ratio : base.aspect_ratio,
    brand_kit: want.brand_kit !== undefined ? want.brand_kit : (base.brand_kit ?? null),
    censor: (CENSOR_MODES as string[]).includes(want.censor ?? "")
      ? (want.censor as CensorMode)
      : (base.censor ?? "off"),
    emphasis: want.emphasis ?? base.emphasis ?? true,
    emoji: want.emoji ?? base.emoji ?? false,
    pace: isPace(want.pace) ? want.pace : (base.pace ?? DEFAULT_PACE),
    loudness: isLoudness(want.loudness) ? want.loudness : base.loudness,
    layout: isLayout(want.layout) ? want.layout : (base.layout ?? "auto"),
  };
}

/** Whether a request steps from the current look (smaller/bigger, up/down) rather than naming values. */
export const stepsRelative = (want: ClipLook) =>
  want.caption_size === "smaller" ||
  want.caption_size === "bigger" ||
  want.caption_position === "up" ||
  want.caption_position === "down";

/** Whether two requests name the same look fields with the same values. */
export function sameRequest(a: ClipLook, b: ClipLook): boolean {
  const named = (x: ClipLook) => LOOK_FIELDS.filter((k) => x[k] !== undefined);
  const ka = named(a);
  return ka.length === named(b).length && ka.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

const isLayout = (v: unknown): v is LayoutChoice => (LAYOUTS as readonly unknown[]).includes(v);

/** The fields whose resolved value differs, in LOOK_FIELDS order. */
export function lookChanges(from: Look, to: Look): LookChange[] {
  return LOOK_FIELDS.filter((k) => from[k] !== to[k]).map((field) => ({ field, from: from[field], to: to[field] }));
}

export const cutChanged = (changes: LookChange[]) => changes.some((c) => CUT_FIELDS.includes(c.field));

const shown = (field: string, v: unknown) =>
  v === null || v === undefined
    ? "none"
    : field === "hook_title" && typeof v === "string"
      ? JSON.stringify(v)
      : String(v);

/**
 * Changes as the API shows them, e.g. "caption_size: medium → large". Jobs store them structured;
 * a string (or an older row's entry) passes through in the same form.
 */
export function changeLines(changes: unknown): string[] {
  if (!Array.isArray(changes)) return [];
  return changes.map((c) =>
    typeof c === "string" ? c : `${c?.field}: ${shown(c?.field, c?.from)} → ${shown(c?.field, c?.to)}`,
  );
}

/** A clip's latest job that did not fail, in the fields ClipJobs.publicJobStatus reads. */
export interface CurrentJob {
  job_id: string;
  kind: "cut" | "render";
  status: "queued" | "running" | "completed";
  run: { state: string } | null;
}

// Jobs recorded before aspect_ratio existed were all 9:16: their look is whole without it.
// brand_kit is null when a clip has none, and missing from jobs recorded before kits existed.
// censor, emphasis and emoji are missing from jobs recorded before clean captions: off, on, off.
// pace is missing from jobs recorded before it: natural (what they were cut with).
// loudness is missing from jobs recorded before it: the service's level (what they were rendered at).
// layout is missing from jobs recorded before the camera (issue 37): auto.
// hook_title_anyway is missing from jobs recorded before it: false (the title was checked).
type Clean = "censor" | "emphasis" | "emoji" | "pace" | "loudness" | "layout" | "hook_title_anyway";
const CLEAN_FIELDS: LookField[] = ["censor", "emphasis", "emoji", "pace", "loudness", "layout", "hook_title_anyway"];
const isLook = (
  // biome-ignore lint/suspicious/noExplicitAny: a caller's JSON look, checked field by field
  o: any,
): o is Omit<Look, "aspect_ratio" | "brand_kit" | Clean> & {
  aspect_ratio?: AspectRatio;
  brand_kit?: string | null;
} & Partial<Pick<Look, Clean>> =>
  !!o &&
  LOOK_FIELDS.every(
    (k) =>
      k === "aspect_ratio" || k === "brand_kit" || CLEAN_FIELDS.includes(k) || (o[k] !== undefined && o[k] !== null),
  );

/** What a clip's cut and render records say of its look (jobs made before looks were recorded whole). */
function _recorded(clip: ClipRow): Partial<Look> {
  const out: Record<string, unknown> = {};
  for (const k of ["style", "caption_size", "caption_position", "hook_title", "hook_title_anyway"] as const)
    if (clip.render?.[k] != null) out[k] = clip.render[k];
  const cutFit = clip.cut?.fit;
  if (cutFit === "crop") out.fit = "fill";
  if (cutFit === "blur" || cutFit === "pad") out.fit = "whole";
  out.background = clip.cut?.background ?? (cutFit === "blur" ? "blur" : undefined);
  if (isAspect(clip.cut?.aspect_ratio)) out.aspect_ratio = clip.cut.aspect_ratio;
  if (isPace(clip.cut?.pace)) out.pace = clip.cut.pace;
  if (isLayout(clip.cut?.camera?.asked)) out.layout = clip.cut.camera.asked;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** Looks against one style catalogue (render.styles_file, as caption-burn reads it). */
export class ClipLooks {
  /** `loudness`: the operator's render.loudness_lufs, the level of a clip nobody chose one for. */
  constructor(
    private readonly stylesFile?: string,
    private readonly loudness: Loudness = DEFAULT_LOUDNESS.lufs,
  ) {}

  private get catalogue(): StyleCatalogue {
    return loadStyles(this.stylesFile || undefined);
  }

  /** The look of a clip nobody chose anything for: the catalogue's default style and the stages' defaults. */
  serviceLook(): Look {
    return {
      style: this.catalogue.default,
      caption_size: "medium",
      caption_position: "bottom",
      hook_title: false,
      hook_title_anyway: false,
      fit: "fill",
      background: "dark",
      aspect_ratio: DEFAULT_ASPECT,
      brand_kit: null,
      censor: "off",
      emphasis: true,
      emoji: false,
      pace: DEFAULT_PACE,
      loudness: this.loudness,
      layout: "auto",
    };
  }

  /** What a new export starts from: the account's saved defaults over the service's. */
  async defaults(q: Queryable, accountId: string): Promise<Look> {
    const saved = (await readClipDefaults(q, accountId)) ?? {};
    const base = this.serviceLook();
    return resolveLook(base, Object.fromEntries(LOOK_FIELDS.filter((k) => saved[k] != null).map((k) => [k, saved[k]])));
  }

  /**
   * Stores `look` as the account's defaults. A hook's own words belong to one clip: later clips get their own title.
   */
  async saveDefaults(q: Queryable, accountId: string, look: Look): Promise<void> {
    await saveClipDefaults(q, accountId, { ...look, hook_title: look.hook_title !== false });
  }

  /**
   * The clip's current look and the job that gave it: its latest job that did not fail, so a
   * restyle sent while another renders builds on that one. A clip never rendered starts from the
   * account's defaults; older jobs without a whole look fall back to the clip's records.
   */
  async current(q: Queryable, clip: ClipRow): Promise<{ look: Look; job: CurrentJob | null; asked?: ClipLook }> {
    const { rows } = await q.query(
      `select j.id, j.kind, j.status, j.options, r.state as run_state from jobs j left join runs r on r.id = j.run_id
        where j.clip_id = $1 and j.status <> 'failed' order by j.created_at desc, j.id desc limit 1`,
      [clip.id],
    );
    const job: CurrentJob | null = rows[0]
      ? {
          job_id: rows[0].id,
          kind: rows[0].kind,
          status: rows[0].status,
          run: rows[0].run_state ? { state: rows[0].run_state } : null,
        }
      : null;
    // The request a restyle was sent with is kept beside its look, and is no part of it.
    const { asked: kept, ...options } = jsonColumn(rows[0]?.options) ?? {};
    const asked = kept && typeof kept === "object" ? (kept as ClipLook) : undefined;
    if (isLook(options))
      return {
        ...(asked ? { asked } : {}),
        look: {
          ...options,
          fit: normalFit(options.fit),
          aspect_ratio: options.aspect_ratio ?? DEFAULT_ASPECT,
          brand_kit: options.brand_kit ?? null,
          censor: options.censor ?? "off",
          emphasis: options.emphasis ?? true,
          emoji: options.emoji ?? false,
          pace: options.pace ?? DEFAULT_PACE,
          hook_title_anyway: options.hook_title_anyway === true,
          loudness: isLoudness(options.loudness) ? options.loudness : this.loudness,
          layout: isLayout(options.layout) ? options.layout : "auto",
        },
        job,
      };
    const base = clip.render ? this.serviceLook() : await this.defaults(q, clip.account_id);
    return { look: resolveLook(base, _recorded(clip)), job };
  }

  /** The run options that spell a look out: caption-burn's always, the cut's for a cut. */
  runOptions(look: Look, kind: "cut" | "render"): Record<string, unknown> {
    const style = this.catalogue.styles.find((s) => s.id === look.style);
    const captions = {
      style: look.style,
      caption_size: look.caption_size,
      caption_position: look.caption_position,
      hook_title: look.hook_title,
      hook_title_anyway: look.hook_title_anyway,
      highlight: !!style && style.animation !== "none",
      censor: look.censor,
      emphasis: look.emphasis,
      emoji: look.emoji,
      loudness: look.loudness,
    };
    return kind === "cut"
      ? {
          ...captions,
          fit: look.fit,
          background: look.background,
          aspect_ratio: look.aspect_ratio,
          pace: look.pace,
          layout: look.layout,
        }
      : captions;
  }
}
