/**
 * PATCH /api/v1/clips/{id}/captions (issue 19, item 4; an extension of the published API): new
 * words for a clip's captions at the same times, and whole sentences trimmed from or added to its
 * ends, then a new render, charged as a restyle. The work is in daemon/account/clip-edits.ts.
 */
import { Type, type Static } from "@sinclair/typebox";
import type { CaptionEdit, CaptionEditResult } from "../../daemon/account/clip-edits.js";
import { changeLines } from "../../daemon/account/clip-look.js";
import type { ClipLook } from "../../daemon/account/episode-rows.js";
import type { JsonSchema } from "../../daemon/engine/stage.js";
import { ApiError } from "../errors.js";
import { defineOperation, settleAnswer, uuidParam, type OperationContext } from "../registry.js";
import { R } from "./_account-requests.js";
import { S } from "./_account-schemas.js";
import { _authOf, testAnswer } from "./_account-testmode.js";

const delta = (end: string) =>
  Type.Optional(
    Type.Integer({
      minimum: -20,
      maximum: 20,
      description: `Whole transcript sentences to add before (positive) or drop from (negative) the clip's ${end}`,
    }),
  );

export const CAPTION_EDIT_BODY = Type.Object(
  {
    cues: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ pattern: "^[1-9][0-9]{0,3}$" }),
            text: Type.String({ minLength: 1, maxLength: 300 }),
            emphasis: Type.Optional(
              Type.Array(Type.Boolean(), {
                maxItems: 100,
                description:
                  "Clip editor: one flag per word of `text`, true to draw it in the highlight colour, " +
                  "false never to; left out, emphasis finds the words as usual",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 100,
          description:
            "Captions to retype: id as GET /clips/{id}/captions lists it, and its new " +
            "text; the words keep the caption's times",
        },
      ),
    ),
    start_sentence_delta: delta("start"),
    end_sentence_delta: delta("end"),
    pieces: Type.Optional(
      Type.Array(
        Type.Object(
          { start: Type.Number({ minimum: 0 }), end: Type.Number({ minimum: 0 }) },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 50,
          description:
            "Extension, the clip editor: the clip's pieces in episode seconds (a trim, or a cut pause put " +
            "back); each edge snaps to the nearest word edge within 0.5 s, touching pieces join; not with " +
            "the sentence deltas",
        },
      ),
    ),
    look: Type.Optional(
      Type.Object(R.restyleBody.properties, {
        additionalProperties: false,
        description:
          "Extension, the clip editor: look fields as PATCH /clips/{id} takes them, rendered in the same job",
      }),
    ),
  },
  { additionalProperties: false, description: "Extension: a clip's captions retyped, its sentences or pieces moved" },
);

/** The editor's look as the render takes it: save_as_default is no look field, a style name becomes its id. */
function editLook(ctx: OperationContext, asked: Static<typeof R.restyleBody>): ClipLook {
  const { save_as_default: _, ...look } = asked;
  if (look.style === undefined) return look;
  const style = ctx.services.episodes.resolveStyle(look.style);
  if (!style)
    throw new ApiError(400, "invalid_request", `body field "look.style": unknown style "${look.style}"`, {
      field: "look.style",
    });
  return { ...look, style };
}

const CAPTION_EDIT_ANSWER: JsonSchema = {
  type: "object",
  description: "Extension: a caption edit's job",
  required: ["clip_id", "job_id", "status", "changes", "charged_cents", "message"],
  properties: {
    ...(S.restyleAnswer as { properties: Record<string, JsonSchema> }).properties,
    start_seconds: { type: "number", description: "Where the clip now starts in the episode" },
    end_seconds: { type: "number", description: "Where the clip now ends in the episode" },
  },
};

export const editClipCaptions = defineOperation({
  id: "editClipCaptions",
  method: "PATCH",
  path: "/api/v1/clips/{id}/captions",
  scope: "clips.write",
  tags: ["clips"],
  params: { id: uuidParam },
  idempotent: true,
  summary:
    "Extension: retype a clip's captions (times kept) and trim or extend it by whole sentences, then render it again",
  body: CAPTION_EDIT_BODY,
  responses: {
    202: {
      description: "A render job started (a cut one when the span moved); or, when nothing changes, nothing started",
      schema: CAPTION_EDIT_ANSWER,
    },
    400: {
      description:
        "Invalid request, naming the field: an unknown caption id, an empty text, " +
        "a delta past the episode or the length limits",
    },
    402: { description: "Payment required", schema: S.paymentError },
    404: { description: "Not on this account" },
    409: { description: "clip_not_cut (still being cut) or no_transcript" },
  },
  async handler(ctx) {
    const auth = _authOf(ctx);
    ctx.status = 202;
    const { look: asked, ...rest } = ctx.body;
    const body: CaptionEdit = { ...rest, ...(asked ? { look: editLook(ctx, asked) } : {}) };
    if (!auth.livemode) {
      const sample = testAnswer.captions(ctx.params.id);
      const changes = (body.cues ?? []).flatMap((c) => {
        const was = sample.captions.find((x) => x.id === c.id);
        return was && was.text !== c.text ? [`caption ${c.id}: ${was.text} → ${c.text}`] : [];
      });
      const job = testAnswer.restyled(ctx.params.id, {}, ctx.services.episodes.looks.serviceLook());
      return { ...job, changes, message: "test mode: nothing is edited or rendered" };
    }
    const hook = settleAnswer(ctx, 202, (r: CaptionEditResult) => {
      const lines = changeLines(r.changes);
      return {
        clip_id: ctx.params.id,
        job_id: r.job.job_id,
        status: r.job.status,
        changes: lines,
        charged_cents: r.job.charged_cents,
        start_seconds: r.start,
        end_seconds: r.end,
        message: lines.length
          ? `${r.job.kind === "cut" ? "cutting and rendering" : "rendering"} the clip ` +
            `again (${lines.join("; ")}); poll GET /api/v1/jobs/${r.job.job_id}`
          : "nothing to change: the captions already read so, so nothing started and nothing was charged",
        livemode: true,
      };
    });
    await ctx.services.episodes.edits.editCaptions(
      auth.account.id,
      ctx.params.id,
      body,
      { origin: ctx.caller.surface },
      hook.within,
    );
    return hook.answer;
  },
});
