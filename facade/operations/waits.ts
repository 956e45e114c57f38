/**
 * Bounded waits, tools of the MCP tool server only (surfaces ["chat"]): a model cannot sleep
 * between polls, so wait_for_job and wait_for_episode hold the call until the work ends or at most
 * MAX_WAIT_SECONDS pass, and answer the state as get_job and get_episode do. A caller that gave a
 * progressToken gets notifications/progress as the run moves (Caller.progress), each with a larger
 * progress value than the one before (the MCP spec's rule; a change of message alone waits for the
 * next rise). Each look at the state is one read of get_job's or get_episode's own handler, so what
 * a wait answers is exactly what those answer.
 *
 * A wait costs little while it holds: it reads only when the database changed, and waits on one
 * thing share each read (../wait-watch.ts). A key may hold MAX_WAITS_PER_KEY at once, and a wait
 * counts against the key's rate limit as one call plus one more for every CHARGE_EVERY_SECONDS it
 * holds; once the limit is reached the wait answers what it has.
 *
 * The default wait stays under the 60 s an MCP SDK client gives a request by default, and so does
 * the longest: no wait a plain client asks for ends in its own timeout.
 */
import { Type, type Static } from "@sinclair/typebox";
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { defineOperation, uuidParam, type Operation, type OperationContext } from "../registry.js";
import { waitWatchOf, type Seen } from "../wait-watch.js";
import { S } from "./_account-schemas.js";
import { _authOf } from "./_account-testmode.js";
import { getJob } from "./clips.js";
import { getEpisode } from "./episodes.js";

/** The longest one wait holds a call, seconds (below an MCP client's default 60 s request timeout). */
export const MAX_WAIT_SECONDS = 55;
/** How long a wait holds without timeout_seconds, seconds. */
export const DEFAULT_WAIT_SECONDS = 50;
/** A wait counts one more request against the key's rate limit for every this many seconds it holds. */
export const CHARGE_EVERY_SECONDS = 5;

const waitQuery = Type.Object({
  timeout_seconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_WAIT_SECONDS,
      default: DEFAULT_WAIT_SECONDS,
      description: `Longest wait, 1 to ${MAX_WAIT_SECONDS} seconds (default ${DEFAULT_WAIT_SECONDS})`,
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

type View = Record<string, unknown>;

/** A wait's context: the id of what it waits on, and its query (waitQuery). */
type WaitContext = OperationContext<undefined, Static<typeof waitQuery>, { id: string }>;

interface WaitRules {
  kind: string;
  ended: (v: View) => boolean;
  progress: (v: View) => { percent: number; message: string };
  again: string;
}

async function waitFor(ctx: WaitContext, read: (ctx: WaitContext) => Promise<unknown> | unknown, o: WaitRules) {
  const auth = _authOf(ctx);
  const seconds = ctx.query.timeout_seconds ?? DEFAULT_WAIT_SECONDS;
  const hub = waitWatchOf(ctx.services.db);
  const release = hub.hold(auth.key.id);
  // Waits that would read the same answer share one watch: same account, mode, link origin and id.
  const key = [o.kind, auth.account.id, auth.livemode, ctx.caller.linkOrigin ?? "", ctx.params.id].join(":");
  const started = Date.now();
  try {
    return await new Promise<View>((resolve, reject) => {
      let last: View | undefined;
      let sent = -1;
      let over = false;
      /** Why the wait ends, once it must (kept until the first read has come, when it comes first). */
      let due: "ended" | "time" | "limit" | undefined;
      let off: (() => void) | undefined;
      const stop = () => {
        over = true;
        clearTimeout(deadline);
        clearInterval(charge);
        ctx.caller.signal?.removeEventListener("abort", onAbort);
        off?.();
      };
      const end = (why: "ended" | "time" | "limit") => {
        due ??= why;
        if (over || !last) return;
        stop();
        const waitedSeconds = Math.round((Date.now() - started) / 100) / 10;
        const state = `still ${String(last.status)} after ${waitedSeconds} s`;
        const note =
          due === "time"
            ? `${state}; ${o.again}`
            : due === "limit"
              ? `${state}; this key's rate limit is reached: ${o.again} once it resets`
              : undefined;
        resolve({
          ...last,
          done: due === "ended",
          waited_seconds: waitedSeconds,
          ...(note ? { wait_message: note } : {}),
        });
      };
      const see = (s: Seen<unknown>) => {
        if (over) return;
        if (!s.ok) {
          stop();
          return reject(s.error);
        }
        last = s.value as View;
        const p = o.progress(last);
        // Only a rise is sent: the spec wants each notification's progress above the one before.
        if (ctx.caller.progress && p.percent > sent) {
          sent = p.percent;
          ctx.caller.progress({ progress: p.percent, total: 100, message: p.message }).catch(() => {});
        }
        if (o.ended(last)) due = "ended";
        if (due) end(due);
      };
      const onAbort = () => end("time");
      const deadline = setTimeout(() => end("time"), seconds * 1000);
      // Time held counts against the key's rate limit, as polling would have.
      const charge = setInterval(() => {
        if (!ctx.services.rates.take(auth.key.id).allowed) end("limit");
      }, CHARGE_EVERY_SECONDS * 1000);
      if (ctx.caller.signal?.aborted) due = "time";
      else ctx.caller.signal?.addEventListener("abort", onAbort, { once: true });
      const unfollow = hub.follow(key, async () => read(ctx), see);
      if (over) unfollow();
      else off = unfollow;
    });
  } finally {
    release();
  }
}

const eta = (s: unknown) => (typeof s === "number" ? `, about ${s} s left` : "");

export const waitForJob = defineOperation({
  id: "waitForJob",
  method: "GET",
  path: "/mcp/jobs/{id}/wait",
  summary:
    `Wait up to ${MAX_WAIT_SECONDS} s (default ${DEFAULT_WAIT_SECONDS}) for a cut or render job to end; ` +
    "answers the job as get_job does",
  scope: "clips.read",
  surfaces: ["chat"],
  tags: ["jobs"],
  params: { id: uuidParam },
  query: waitQuery,
  responses: { 200: { description: "The job, and whether it ended", schema: withWait(S.job) } },
  handler: (ctx) =>
    waitFor(ctx, (c) => getJob.handler(c), {
      kind: "job",
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
    `Wait up to ${MAX_WAIT_SECONDS} s (default ${DEFAULT_WAIT_SECONDS}) for an episode to be ready ` +
    "(or failed, or waiting for its upload); " +
    "answers the episode as get_episode does",
  scope: "clips.read",
  surfaces: ["chat"],
  tags: ["episodes"],
  params: { id: uuidParam },
  query: waitQuery,
  responses: { 200: { description: "The episode, and whether it is done", schema: withWait(S.episode) } },
  handler: (ctx) =>
    waitFor(ctx, (c) => getEpisode.handler(c), {
      kind: "episode",
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
