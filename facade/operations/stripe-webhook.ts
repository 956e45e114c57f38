/**
 * POST /webhooks/stripe: where Stripe delivers payment events (daemon/payments/stripe-events.ts).
 * Public (Stripe signs each body instead), left out of the OpenAPI document, and read as raw
 * bytes, since the signature covers the exact body: up to MAX_EVENT_BYTES, counted as it streams.
 */
import { ApiError } from "../errors.js";
import { defineOperation } from "../registry.js";

/** Stripe's events are a few KB; a body over this is not one of them. */
export const MAX_EVENT_BYTES = 256 * 1024;

async function readRaw(req: Request | undefined, max: number): Promise<Buffer> {
  const declared = Number(req?.headers.get("content-length") ?? NaN);
  const tooLarge = () =>
    new ApiError(413, "body_too_large", `a Stripe event body is at most ${max} bytes`, { max_bytes: max });
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  if (!req?.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const next = await reader.read().catch((cause) => {
        throw new ApiError(
          400,
          "body_interrupted",
          `the event body broke off after ${bytes} bytes`,
          { field: "body" },
          { cause },
        );
      });
      if (next.done) break;
      bytes += next.value.byteLength;
      if (bytes > max) throw tooLarge();
      chunks.push(next.value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, bytes);
}

export const stripeWebhook = defineOperation({
  id: "stripeWebhook",
  method: "POST",
  path: "/webhooks/stripe",
  summary: "Receives Stripe's payment events (signed with the endpoint's secret)",
  scope: null,
  auth: "public",
  internal: true,
  tags: ["payments"],
  responses: {
    200: { description: "Received: applied, a duplicate, or a type clipd ignores" },
    400: { description: "bad_signature: the Stripe-Signature header does not sign the body" },
    404: { description: "This clipd takes no Stripe payments" },
    413: { description: "The body is larger than a Stripe event" },
  },
  async handler(ctx) {
    const raw = await readRaw(ctx.caller.request, MAX_EVENT_BYTES);
    return ctx.services.payments.stripeWebhook(raw, ctx.caller.request?.headers.get("stripe-signature") ?? undefined);
  },
});
