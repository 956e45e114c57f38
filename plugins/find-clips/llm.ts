/**
 * The LLM clip finder: any OpenAI-compatible chat endpoint, asked for JSON-schema output. The model
 * sees the transcript as numbered sentences with their times and answers with spans. Nothing it
 * says is trusted: every span is snapped to real sentence boundaries (within SNAP_SECONDS) or
 * rejected, then held to the length limits and to no overlap, exactly like heuristic clips. The
 * caller falls back to the heuristic when the call fails or no span survives.
 */
import OpenAI from "openai";
import pRetry, { AbortError } from "p-retry";
import type { Logger } from "pino";
import {
  clipRef,
  overlap,
  round,
  titleFor,
  toWindow,
  type Clip,
  type FindOptions,
  type Prepared,
} from "./heuristic.js";
import { withAnswer } from "./brief.js";
import { ANSWER_SCHEMA, buildMessages, checkScores, titleProblem } from "./llm-prompt.js";
import { scoreWindow } from "./score.js";

export { ANSWER_SCHEMA, buildMessages };

const fmt = (t: number) => t.toFixed(2);

/** How far (seconds) a time the model gives may sit from a real sentence boundary and still count. */
export const SNAP_SECONDS = 0.5;
/** Used when neither llm.model nor a chat-capable openai.model is configured. */
export const DEFAULT_CHAT_MODEL = "gpt-4o-mini";

export interface LlmSettings {
  baseURL?: string;
  apiKey: string;
  model: string;
  retries: number;
  retryMinMs: number;
  timeoutMs: number;
}

/**
 * Settings from config `llm.*`, each falling back to `openai.*`. Undefined when no endpoint is
 * configured at all (no base URL and no key). openai.model is skipped when it names a speech model.
 */
// biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
export function llmSettings(config: Readonly<Record<string, any>>): LlmSettings | undefined {
  const llm = config.llm ?? {};
  const oa = config.openai ?? {};
  const pick = (k: string) => (llm[k] !== undefined && llm[k] !== "" ? llm[k] : oa[k] !== "" ? oa[k] : undefined);
  const baseURL: string | undefined = pick("base_url");
  const apiKey: string | undefined = pick("api_key");
  if (!baseURL && !apiKey) return undefined;
  const oaModel = typeof oa.model === "string" && !/whisper|transcribe|tts/i.test(oa.model) ? oa.model : undefined;
  return {
    baseURL,
    // Local servers often need no key, but the client insists on one.
    apiKey: apiKey ?? "none",
    model: llm.model || oaModel || DEFAULT_CHAT_MODEL,
    retries: pick("retries") ?? 2,
    retryMinMs: pick("retry_min_ms") ?? 1000,
    timeoutMs: pick("timeout_ms") ?? 120_000,
  };
}

export interface Rejected {
  start: unknown;
  end: unknown;
  reason: string;
}

/** Sentence index whose boundary (start or end) is nearest to t, within SNAP_SECONDS. */
function _snap(times: number[], t: number): number {
  let best = -1;
  let bestGap = Infinity;
  times.forEach((x, i) => {
    const gap = Math.abs(x - t);
    if (gap < bestGap) {
      bestGap = gap;
      best = i;
    }
  });
  return bestGap <= SNAP_SECONDS ? best : -1;
}

/** Checks the model's proposals against the transcript; returns the clips that pass and why others didn't. */
export function checkProposals(
  proposals: unknown,
  p: Prepared,
  opts: FindOptions & { model?: string },
): { clips: Clip[]; rejected: Rejected[] } {
  const list = Array.isArray(proposals) ? proposals : [];
  const { words, sentences, stats, duration } = p;
  const starts = sentences.map((s) => s.start);
  const ends = sentences.map((s) => s.end);
  const existing = opts.existing ?? [];
  const blocked = existing
    .filter((c) => Number.isFinite(c.start) && Number.isFinite(c.end))
    .map((c) => ({ start: c.start, end: c.end }));
  const taken = new Set(existing.map((c) => c.ref));
  const rejected: Rejected[] = [];
  const answered = new Map<Clip, number>();
  const accepted: Array<{ clip: Omit<Clip, "number">; order: number }> = [];
  // biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
  list.forEach((raw: any, order) => {
    const start = raw?.start;
    const end = raw?.end;
    const reject = (reason: string) => void rejected.push({ start, end, reason });
    if (accepted.length >= opts.count) return reject("more clips than asked for");
    if (
      typeof start !== "number" ||
      typeof end !== "number" ||
      !Number.isFinite(start) ||
      !Number.isFinite(end) ||
      end <= start
    ) {
      return reject("start/end are not two increasing numbers");
    }
    const i = _snap(starts, start);
    if (i < 0) return reject(`start ${fmt(start)} is not the start of a sentence`);
    const j = _snap(ends, end);
    if (j < 0) return reject(`end ${fmt(end)} is not the end of a sentence`);
    if (j < i) return reject("end comes before start once snapped to sentences");
    // _snap returned indexes into starts/ends, one per sentence.
    const last = sentences[j]!;
    const w = toWindow(
      words,
      sentences[i]!.firstWord,
      last.firstWord + last.words.length - 1,
      duration,
      sentences.slice(i, j + 1),
    );
    if (w.duration < opts.min || w.duration > opts.max) {
      return reject(`length ${w.duration.toFixed(1)} s is outside ${opts.min}–${opts.max} s`);
    }
    // With a brief, a span that is mostly a listed clip is answered by that clip (number and ref kept).
    const same = opts.about
      ? existing.find(
          (e) =>
            Number.isFinite(e.start) &&
            Number.isFinite(e.end) &&
            overlap(e, w) >= 0.5 * Math.min(w.end - w.start, e.end - e.start),
        )
      : undefined;
    if (same) return void (answered.has(same) || answered.set(same, order));
    if (blocked.some((b) => overlap(b, w) > 0)) return reject("overlaps a clip already chosen");
    blocked.push({ start: w.start, end: w.end });
    const s = scoreWindow(w, stats, opts.target, opts.max - opts.min);
    const modelScore =
      typeof raw.score === "number" && Number.isFinite(raw.score)
        ? Math.max(0, Math.min(100, Math.round(raw.score)))
        : undefined;
    // The model's title and sub-scores are used only when they keep the rules; else the heuristic's.
    const given = typeof raw.title === "string" ? raw.title.trim().slice(0, 80) : "";
    const title = given && !titleProblem(given) ? given : titleFor(w, s.keyTerms);
    const scores = checkScores(raw.scores) ?? s.scores;
    const why =
      typeof raw.reason === "string" && raw.reason.trim() ? raw.reason.trim().slice(0, 300) : "chosen by the model";
    const ref = clipRef(opts.seed, w.start, w.end, taken);
    taken.add(ref);
    accepted.push({
      order,
      clip: {
        ref,
        title,
        hook: w.sentences[0]!.text.trim(),
        start: round(w.start),
        end: round(w.end),
        duration: round(w.duration),
        pieces: w.pieces,
        score: {
          value: modelScore ?? Math.round(s.quality * 100),
          reasons: [`${opts.model ?? "llm"}: ${why}`, ...s.reasons],
        },
        scores,
        ...(opts.about ? { about: opts.about } : {}),
      },
    });
  });
  // The model's own score ranks; its order breaks ties.
  accepted.sort((a, b) => b.clip.score.value - a.clip.score.value || a.order - b.order);
  const first = existing.reduce((a, c) => Math.max(a, c.number ?? 0), 0) + 1;
  const fresh = accepted.map((a, k): Clip => ({ number: first + k, ...a.clip }));
  if (!opts.about) return { clips: [...existing, ...fresh], rejected };
  // Ranks of the brief's answers follow the model's order, listed clips and new ones together.
  const order = [...answered.values(), ...accepted.map((a) => a.order)].sort((a, b) => a - b);
  const rankOf = (o: number) => order.indexOf(o);
  return {
    clips: [
      ...existing.map((c) => (answered.has(c) ? withAnswer(c, opts.about!, rankOf(answered.get(c)!)) : c)),
      ...fresh.map((c, k) => withAnswer(c, opts.about!, rankOf(accepted[k]!.order))),
    ],
    rejected,
  };
}

function _isTransient(err: unknown): boolean {
  const status = (err as { status?: number })?.status;
  if (status === undefined) return true; // network errors, timeouts
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export interface LlmResult {
  model: string;
  clips: Clip[];
  proposed: number;
  rejected: Rejected[];
}

/**
 * Asks the endpoint (with retries) and checks its answer. Throws when the call fails or the answer is not the JSON
 * asked for.
 */
export async function findClipsWithLlm(
  p: Prepared,
  opts: FindOptions & { contentType?: string },
  settings: LlmSettings,
  run: { signal: AbortSignal; log: Logger },
): Promise<LlmResult> {
  const client = new OpenAI({
    apiKey: settings.apiKey,
    baseURL: settings.baseURL,
    maxRetries: 0,
    timeout: settings.timeoutMs,
  });
  const messages = buildMessages(p, opts);
  const content = await pRetry(
    async () => {
      try {
        const res = await client.chat.completions.create(
          {
            model: settings.model,
            messages,
            response_format: {
              type: "json_schema",
              json_schema: { name: "clips", strict: true, schema: ANSWER_SCHEMA as unknown as Record<string, unknown> },
            },
          },
          { signal: run.signal },
        );
        const msg = res.choices?.[0]?.message;
        if (msg?.refusal) throw new AbortError(`the model refused: ${msg.refusal}`);
        if (!msg?.content) throw new AbortError("the model's answer is empty");
        return msg.content;
      } catch (err) {
        if (err instanceof AbortError) throw err;
        if (run.signal.aborted || !_isTransient(err)) throw new AbortError(err as Error);
        throw err;
      }
    },
    {
      retries: settings.retries,
      minTimeout: settings.retryMinMs,
      factor: 2,
      signal: run.signal,
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) =>
        run.log.warn({ err: error, attemptNumber, retriesLeft }, "find-clips: llm request failed"),
    },
  );
  let answer: { clips?: unknown };
  try {
    answer = JSON.parse(content);
  } catch (err) {
    throw new Error(`the model's answer is not JSON: ${content.slice(0, 120)}`, { cause: err });
  }
  const proposed = Array.isArray(answer?.clips) ? answer.clips.length : 0;
  const { clips, rejected } = checkProposals(answer?.clips, p, { ...opts, model: settings.model });
  return { model: settings.model, clips, proposed, rejected };
}
