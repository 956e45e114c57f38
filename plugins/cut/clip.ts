/**
 * Which clip to cut, and its words on the clip's own timeline. A clip's pieces are joined back to
 * back, so a word at source time t in piece k lands at (offset of piece k) + (t − piece start).
 */
import { createHash } from "node:crypto";
import { StageError, type StageInput } from "../../daemon/engine/stage.js";
import type { Piece } from "../../daemon/render/timeline.js";

export type { Piece, TimedWord } from "../../daemon/render/timeline.js";
export { retimeWords } from "../../daemon/render/timeline.js";

export interface ClipSpec {
  ref: string;
  number?: number;
  title?: string;
  hook?: string;
  start: number;
  end: number;
  pieces: Piece[];
  /** A crop plan made ahead of the render (plugins/cut/planned.ts), as the clip carried it. */
  crop_plan?: unknown;
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** Picks the clip from `input.clip`, or by number/ref from `input.clips`; clamps its pieces. */
export function selectClip(
  input: StageInput,
  opts: { clip_number?: number; clip_ref?: string },
  mediaDuration?: number,
): ClipSpec {
  const number = opts.clip_number ?? input.clip_number;
  const ref = opts.clip_ref ?? input.clip_ref;
  let clip = input.clip && typeof input.clip === "object" ? input.clip : undefined;
  if (!clip) {
    // biome-ignore lint/suspicious/noExplicitAny: run-state JSON; readers check each field they use
    const list: any[] = Array.isArray(input.clips) ? input.clips : [];
    clip =
      ref !== undefined
        ? list.find((c) => c.ref === ref)
        : number !== undefined
          ? list.find((c) => c.number === Number(number))
          : list.length === 1
            ? list[0]
            : undefined;
    if (!clip) {
      const which = ref !== undefined ? `ref "${ref}"` : number !== undefined ? `number ${number}` : "(none named)";
      throw new StageError("clip_not_found", `cut: no clip ${which} among the ${list.length} clips of this run`);
    }
  }
  const limit = mediaDuration && mediaDuration > 0 ? mediaDuration : Infinity;
  const raw: Piece[] =
    Array.isArray(clip.pieces) && clip.pieces.length ? clip.pieces : [{ start: clip.start, end: clip.end }];
  const pieces = raw
    .map((p) => ({ start: round(Math.max(0, Number(p.start))), end: round(Math.min(limit, Number(p.end))) }))
    .filter((p) => Number.isFinite(p.start) && Number.isFinite(p.end) && p.end - p.start >= 0.04);
  if (!pieces.length) {
    throw new StageError(
      "bad_input",
      `cut: clip ${clip.ref ?? clip.number ?? ""} has no playable span within the recording (${limit} s)`,
    );
  }
  const start = pieces[0]!.start; // non-empty, checked above
  const end = pieces[pieces.length - 1]!.end;
  const stableRef =
    clip.ref ??
    `c${createHash("sha1")
      .update(`${input.source?.key ?? ""}|${start}|${end}`)
      .digest("hex")
      .slice(0, 4)}`;
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(stableRef))
    throw new StageError("bad_input", `cut: clip ref "${stableRef}" is not a short id`);
  return {
    ref: stableRef,
    number: clip.number,
    title: clip.title,
    hook: clip.hook,
    start,
    end,
    pieces,
    ...(clip.crop_plan ? { crop_plan: clip.crop_plan } : {}),
  };
}

export const totalDuration = (pieces: Piece[]) => round(pieces.reduce((a, p) => a + (p.end - p.start), 0));
