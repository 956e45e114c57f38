/**
 * Bounded waits, tools of the MCP tool server only (surfaces ["chat"]): a model cannot sleep
 * between polls, so wait_for_job and wait_for_episode hold the call until the work ends or at most
 * 60 seconds pass, and answer the state as get_job and get_episode do. A caller that gave a
 * progressToken gets notifications/progress as the run moves (Caller.progress). Each look at the
 * state is one read of get_job's or get_episode's own handler, so what a wait answers is exactly
 * what those answer; a wait counts once against the rate limit, as one call.
 */
import { Type, type Static } from "@sinclair/typebox";
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { defineOperation, uuidParam, type Operation, type OperationContext } from "../registry.js";
import { S } from "./_account-schemas.js";
import { getJob } from "./clips.js";
import { getEpisode } from "./episodes.js";

/** The longest one wait holds a call, seconds. */
export const MAX_WAIT_SECONDS = 60;
/** How often the state is read while waiting, ms (a read is one indexed row, kept in read-cache). */
const LOOK_EVERY_MS = 500;

const waitQuery = Type.Object({
  timeout_seconds: Type.Optional(
    Type.String({
      pattern: "^\\d{1,2}$",
      description: `Longest wait, 1 to ${MAX_WAIT_SECONDS} seconds (default ${MAX_WAIT_SECONDS})`,
    }),
  ),
});

const waited = {
  done: { type: "boolean", description: "Whether the work has ended (or waits on the user); false: call again" },
  waited_seconds: { type: "number" },
  wait_message: { type: "string" },
};
const withWait = (schema: JsonSchema): JsonSchema => ({
  ...schema,
  required: [...((schema.required as string[]) ?? []), "done", "waited_seconds"],
  properties: { ...(schema.properties as Record<string, JsonSchema>), ...waited },
});

/** Resolves after `ms`, or at once when the caller gives up. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

type View = Record<string, unknown>;

/** A wait's context: the id of what it waits on, and its query (waitQuery). */
type WaitContext = OperationContext<undefined, Static<typeof waitQuery>, { id: string }>;

async function waitFor(
  ctx: WaitContext,
  read: (ctx: WaitContext) => Promise<unknown> | unknown,
  o: { ended: (v: View) => boolean; progress: (v: View) => { percent: number; message: string }; again: string },
): Promise<View> {
  const raw = ctx.query.timeout_seconds;
  const limit = Math.min(MAX_WAIT_SECONDS, Math.max(1, raw === undefined ? MAX_WAIT_SECONDS : Number(raw)));
  const started = Date.now();
  const deadline = started + limit * 1000;
  let last = "";
  for (;;) {
    const v = (await read(ctx)) as View;
    const ended = o.ended(v);
    const p = o.progress(v);
    const said = `${p.percent} ${p.message}`;
    // Only a change is sent: a model's client shows each notification.
    if (ctx.caller.progress && said !== last) {
      last = said;
      await ctx.caller.progress({ progress: p.percent, total: 100, message: p.message }).catch(() => {});
    }
    const waitedSeconds = Math.round((Date.now() - started) / 100) / 10;
    if (ended || Date.now() >= deadline || ctx.caller.signal?.aborted)
      return {
        ...v,
        done: ended,
        waited_seconds: waitedSeconds,
        ...(ended ? {} : { wait_message: `still ${String(v.status)} after ${waitedSeconds} s; ${o.again}` }),
      };
    await pause(Math.min(LOOK_EVERY_MS, deadline - Date.now()), ctx.caller.signal);
  }
}

const eta = (s: unknown) => (typeof s === "number" ? `, about ${s} s left` : "");

export const waitForJob = defineOperation({
  id: "waitForJob",
  method: "GET",
  path: "/mcp/jobs/{id}/wait",
  summary: `Wait up to ${MAX_WAIT_SECONDS} s for a cut or render job to end; answers the job as get_job does`,
  scope: "clips.read",
  surfaces: ["chat"],
  tags: ["jobs"],
  params: { id: uuidParam },
  query: waitQuery,
  responses: { 200: { description: "The job, and whether it ended", schema: withWait(S.job) } },
  handler: (ctx) =>
    waitFor(ctx, (c) => getJob.handler(c), {
      ended: (v) => v.status === "completed" || v.status === "failed",
      progress: (v) => ({
        percent: Number(v.progress ?? 0),
        message: `job ${String(v.status)}${eta(v.eta_seconds)}`,
      }),
      again: "call wait_for_job again",
    }),
});

export const waitForEpisode = defineOperation({
  id: "waitForEpisode",
  method: "GET",
  path: "/mcp/episodes/{id}/wait",
  summary:
    `Wait up to ${MAX_WAIT_SECONDS} s for an episode to be ready (or failed, or waiting for its upload); ` +
    "answers the episode as get_episode does",
  scope: "clips.read",
  surfaces: ["chat"],
  tags: ["episodes"],
  params: { id: uuidParam },
  query: waitQuery,
  responses: { 200: { description: "The episode, and whether it is done", schema: withWait(S.episode) } },
  handler: (ctx) =>
    waitFor(ctx, (c) => getEpisode.handler(c), {
      ended: (v) => v.status === "ready" || v.status === "failed" || v.status === "awaiting_upload",
      progress: (v) => {
        const p = (v.progress ?? {}) as {
          stage?: string;
          percent?: number;
          note?: string | null;
          eta_seconds?: unknown;
        };
        return {
          percent: Number(p.percent ?? 0),
          message: `${p.stage ?? String(v.status)}${p.note ? `: ${p.note}` : ""}${eta(p.eta_seconds)}`,
        };
      },
      again: "call wait_for_episode again",
    }),
});

export const WAIT_OPERATIONS: Operation[] = [waitForJob, waitForEpisode];
