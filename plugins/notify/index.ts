// Records an event for the run. The stage only describes the event; the runner writes it to the
// events table in the same transaction that finishes the step, so an event cannot be lost by a
// crash, nor exist for a change that never committed. Delivery (webhooks) reads that table.
import { Type } from "@sinclair/typebox";
import { defineStage, type StageWith } from "../../daemon/engine/stage.js";

const SUMMARY_KEYS = [
  "source",
  "media",
  "transcript",
  "clips",
  "clips_key",
  "cut",
  "render",
  "error",
  "episode_id",
  "clip_id",
  "job_id",
];

/** The `with:` options of notify: the one place their limits and descriptions are written. */
export const NotifyOptionsSchema = Type.Object(
  {
    event: Type.String({ pattern: "^[a-z]+(\\.[a-z_]+)+$", description: "Event type, e.g. episode.ready" }),
    include: Type.Optional(
      Type.Array(Type.String(), {
        "x-default": "the usual result keys",
        description: "State keys copied into the event data.",
      }),
    ),
  },
  { additionalProperties: false },
);

export default defineStage<StageWith<typeof NotifyOptionsSchema>>({
  name: "notify",
  summary: "Records an event (episode.ready, clip.failed, …) for webhooks and watchers",
  options: NotifyOptionsSchema,
  async run(input, ctx) {
    const keys = ctx.options.include ?? SUMMARY_KEYS;
    const data: Record<string, unknown> = { run_id: ctx.runId, pipeline: ctx.pipeline };
    for (const k of keys) if (input[k] !== undefined) data[k] = input[k];
    ctx.log.info({ event: ctx.options.event }, "event recorded");
    return { _events: [{ type: ctx.options.event, data }] };
  },
});
