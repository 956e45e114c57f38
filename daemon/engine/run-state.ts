/**
 * The keys a run's state carries from step to step, and what each holds. A stage says which keys
 * it needs and which it provides (StageDefinition.needs / provides); a pipeline says which keys
 * its runs start with (`input:` in its YAML). `pipelines lint` then catches a step that needs a
 * key no earlier step provides (caption-burn without a cut) before any run finds out.
 */

/** A stored media file (fetch-source). */
export interface SourceFile {
  key: string;
  name: string;
  bytes: number;
  content_type?: string;
}

/** What probe measured. */
export interface MediaInfo {
  kind: "video" | "audio";
  duration: number;
  [more: string]: unknown;
}

/** A stored transcript (transcribe): its key, with the text files beside it. */
export interface TranscriptRef {
  key: string;
  [more: string]: unknown;
}

/** One found clip: where it is in the episode, and why it was picked. */
export interface FoundClip {
  number?: number;
  ref?: string;
  title?: string;
  start: number;
  end: number;
  pieces?: Array<{ start: number; end: number }>;
  [more: string]: unknown;
}

/** A cut clip (cut) and its rendered version (caption-burn), both stored by key. */
export interface CutResult {
  key: string;
  [more: string]: unknown;
}
export interface RenderResult {
  key: string;
  [more: string]: unknown;
}

export interface RunStateShape {
  source: SourceFile;
  media: MediaInfo;
  transcript: TranscriptRef;
  clips: FoundClip[];
  clip: FoundClip;
  cut: CutResult;
  render: RenderResult;
}

export type StateKey = keyof RunStateShape;
export const STATE_KEYS: readonly StateKey[] = ["source", "media", "transcript", "clips", "clip", "cut", "render"];

/** A need: one key, or a list of keys of which any one will do. */
export type StateNeed = StateKey | readonly StateKey[];

/** The needs of a step that nothing available meets, as readable text ("cut", "clip or clips"). */
export function unmetNeeds(needs: readonly StateNeed[] | undefined, available: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const need of needs ?? []) {
    const any = typeof need === "string" ? [need] : need;
    if (!any.some((k) => available.has(k))) out.push(any.join(" or "));
  }
  return out;
}
