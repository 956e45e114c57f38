// The one error mapping (facade/errors.ts): each kind of domain refusal gets its HTTP status there,
// by class, and its code, message and context go into the envelope unchanged.
import { HTTPError } from "h3";
import { describe, expect, it } from "vitest";
import {
  Conflict,
  LimitReached,
  NotFound,
  PaymentRequired,
  Refused,
  Unauthorized,
} from "../../daemon/domain/errors.js";
import { NetRefusal } from "../../daemon/net/public-url.js";
import { RunError } from "../../daemon/engine/run.js";
import { ApiError, toErrorBody } from "../../facade/errors.js";

describe("toErrorBody", () => {
  it("gives each kind of domain refusal its status and keeps code, message and context", () => {
    const cases: Array<[Error, number]> = [
      [new Refused("invalid_request", "bad", { context: { field: "email" } }), 400],
      [new NetRefusal("forbidden_address", "private", { field: "url", host: "10.0.0.1" }), 400],
      [new NotFound("not_found", "gone", { context: { field: "id" } }), 404],
      [new Conflict("webhook_exists", "twice", { context: { field: "url", webhook_id: "w1" } }), 409],
      [new Unauthorized("bad_key", "who"), 401],
      [new LimitReached("size", "too_long", "long", { context: { max_seconds: 60 } }), 413],
      [new LimitReached("quota", "daily_limit", "enough", { context: { limit: 2, resets_at: "x" } }), 429],
      [new LimitReached("capacity", "ceiling", "spent", { context: { resets_at: "y" } }), 503],
      [new PaymentRequired("credit_required", "pay", 120, 20), 402],
    ];
    for (const [err, status] of cases) {
      const e = err as Refused;
      expect(toErrorBody(err), e.code).toEqual({
        status,
        body: { error: { code: e.code, message: e.message, ...e.context } },
      });
      expect("status" in err, e.code).toBe(false);
    }
    expect(toErrorBody(new PaymentRequired("credit_required", "pay", 120, 20)).body.error).toMatchObject({
      needed_cents: 120,
      credit_cents: 20,
    });
  });

  it("keeps a cause and names the class", () => {
    const cause = new Error("dns");
    const err = new Refused("unreadable", "no", { cause });
    expect(err.cause).toBe(cause);
    expect(err.name).toBe("Refused");
  });

  it("maps the facade's own refusals, the engine's RunError and h3's client errors, and hides the rest", () => {
    expect(toErrorBody(new ApiError(415, "unsupported_type", "no", { extension: "txt" }))).toEqual({
      status: 415,
      body: { error: { code: "unsupported_type", message: "no", extension: "txt" } },
    });
    expect(toErrorBody(new RunError("not_found", "run r does not exist")).status).toBe(404);
    expect(toErrorBody(new RunError("invalid_option", "no step takes x")).status).toBe(400);
    expect(toErrorBody(new HTTPError({ status: 405, message: "nope" }))).toEqual({
      status: 405,
      body: { error: { code: "bad_request", message: "nope" } },
    });
    expect(toErrorBody(new Error("secret detail"))).toEqual({
      status: 500,
      body: { error: { code: "internal", message: "internal error; the details are in the server log" } },
    });
  });
});
