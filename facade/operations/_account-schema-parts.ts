// Building blocks of the account API's answer schemas: the shared field shapes (livemode, money,
// progress, queue, posters) and the clip and episode objects that several answers embed. Kept apart
// from the answers themselves (_account-schemas.ts, _clip-answer-schemas.ts) so both can use them.
import type { JsonSchema } from "../../daemon/engine/stage.js";

export const str = (extra: Record<string, unknown> = {}): JsonSchema => ({ type: "string", ...extra });
export const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: "null" }] });
export const livemode: JsonSchema = { type: "boolean", description: "false for test keys (sample data)" };
export const money = { charged_cents: { type: "integer", minimum: 0, description: "What this call charged" } };
const progress: JsonSchema = {
  type: "object",
  required: ["stage", "percent"],
  properties: {
    stage: str(),
    percent: { type: "number", minimum: 0, maximum: 100 },
    note: nullable(str()),
    eta_seconds: nullable({
      type: "integer",
      minimum: 0,
      description: "Seconds the current stage still expects to take, from its measured speed; null without an estimate",
    }),
  },
};
export const queue: JsonSchema = {
  anyOf: [
    {
      type: "object",
      required: ["position", "ahead"],
      properties: { position: { type: "integer", minimum: 1 }, ahead: { type: "integer", minimum: 0 } },
    },
    { type: "null" },
  ],
  description:
    "Extension: where the waiting step stands in the step queue shared by every account: `ahead` step " +
    "jobs a worker takes before it, `position` ahead + 1; null while its step runs or when nothing waits",
};
const subScore = (what: string): JsonSchema => ({
  type: "object",
  required: ["value", "reason"],
  properties: {
    value: { type: "integer", minimum: 0, maximum: 100 },
    reason: str({ description: `One line on the ${what}` }),
  },
});
const clipScores: JsonSchema = {
  type: "object",
  required: ["hook", "coherence", "payoff", "delivery"],
  description: "The score's four parts, each 0–100 with a one-line reason",
  properties: {
    hook: subScore("opening: a claim, a number, a promise or a tension"),
    coherence: subScore("passage standing alone: one speaker or exchange, its start and a finished last thought"),
    payoff: subScore("ending's payoff (a finding, advice, a twist) and the information carried"),
    delivery: subScore("delivery: pace, loudness and fillers"),
  },
};
export const posterUrl = str({
  format: "uri",
  description:
    "Extension: signed link to the poster as JPEG (the frame at the hook's " +
    "first word with the title), valid as long as download_url",
});
export const posterWebpUrl = str({
  format: "uri",
  description: "Extension: the same poster as WebP",
});
/** A hook title box asked for and left off (issue 39), with the two ways to have one. */
export const hookTitleDropped: JsonSchema = {
  type: "object",
  required: ["reason", "message", "unsure_words", "choices"],
  description:
    "Extension: present when hook_title true drew no box because the title's words were heard with low " +
    "confidence; each choice is a PATCH /clips/{id} body that draws one",
  properties: {
    reason: str({ enum: ["low_confidence"] }),
    message: str(),
    unsure_words: {
      type: "array",
      items: {
        type: "object",
        required: ["word", "confidence"],
        properties: { word: str(), confidence: { type: "number", minimum: 0, maximum: 1 } },
      },
    },
    choices: {
      type: "array",
      items: {
        type: "object",
        required: ["choice", "description", "restyle"],
        properties: {
          choice: str({ enum: ["burn_anyway", "own_words"] }),
          description: str(),
          restyle: { type: "object", description: "The body of PATCH /clips/{id} that makes this choice" },
        },
      },
    },
  },
};
export const clip: JsonSchema = {
  type: "object",
  required: ["number", "ref", "title", "hook", "start", "end", "length", "pieces", "cut_status", "export_status"],
  properties: {
    clip_id: str({ format: "uuid" }),
    number: { type: "integer" },
    ref: str(),
    title: str(),
    hook: str({ description: "The opening line that grabs attention" }),
    start: str({
      pattern: "^\\d{2,}:\\d{2}$",
      description: "Where the clip starts in the episode, mm:ss (minutes go past 59)",
    }),
    end: str({ pattern: "^\\d{2,}:\\d{2}$", description: "Where the clip ends in the episode, mm:ss" }),
    length: str({ pattern: "^\\d+:\\d{2}$", description: "The clip's length, m:ss" }),
    pieces: { type: "integer", minimum: 1, description: "How many parts of the episode the clip joins" },
    start_seconds: { type: "number" },
    end_seconds: { type: "number" },
    score: nullable({ type: "number" }),
    reasons: { type: "array", items: str() },
    scores: nullable(clipScores),
    about: nullable(str()),
    answers: {
      type: "array",
      items: str(),
      description:
        "The briefs (search `about`) this clip answers; a brief whose best answer " +
        "was already listed returns that clip, with its number and ref",
    },
    cut_status: str({ enum: ["not_cut", "cutting", "cut", "failed"] }),
    export_status: str({ enum: ["none", "rendering", "exported", "failed"] }),
    style: nullable(str()),
    download_url: str({ format: "uri" }),
    download_expires_at: str({ format: "date-time" }),
    poster_url: posterUrl,
    poster_webp_url: posterWebpUrl,
    hook_title_dropped: hookTitleDropped,
  },
};
export const episode: JsonSchema = {
  type: "object",
  required: ["episode_id", "name", "status", "duration", "clips", "progress", "livemode"],
  properties: {
    episode_id: str({ format: "uuid" }),
    name: str(),
    status: str({ enum: ["awaiting_upload", "importing", "transcribing", "searching", "ready", "failed"] }),
    failure: {
      type: "object",
      required: ["code", "message"],
      properties: { code: str(), message: str(), stage: str() },
    },
    duration: nullable(str({ pattern: "^(\\d+:)?\\d{2}:\\d{2}$", description: "mm:ss (h:mm:ss from an hour)" })),
    duration_seconds: nullable({ type: "number" }),
    source: str({ enum: ["url", "upload"] }),
    content_type: str(),
    progress,
    queue,
    clips: { type: "array", items: clip },
    hint: str({ description: "Why a ready episode has no clips (only then)" }),
    next_steps: { type: "array", items: str(), description: "What to try for a ready episode without clips" },
    charged_cents: { type: "integer" },
    created_at: str({ format: "date-time" }),
    livemode,
  },
};
export const paymentError: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "needed_cents", "credit_cents"],
      properties: {
        code: str({ enum: ["plan_or_credit_required", "credit_required", "plan_required", "balance_below_zero"] }),
        message: str(),
        needed_cents: { type: "integer" },
        credit_cents: { type: "integer" },
      },
    },
  },
};
