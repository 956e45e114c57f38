// The API tier's response check (test/helpers/contract.ts) itself: it matches requests to the
// document's operations the way the router does, and names what an off-contract answer got wrong.
import { describe, expect, it } from "vitest";
import { contractProblem, matchOperation } from "../helpers/contract.js";

const ID = "6f1c1f4e-1111-4222-8333-444455556666";

describe("response check against the OpenAPI document", () => {
  it("matches path templates, a static segment before a parameter, HEAD as GET", () => {
    expect(matchOperation("GET", `/api/v1/episodes/${ID}`)?.id).toBe("getEpisode");
    expect(matchOperation("POST", `/api/v1/episodes/${ID}/uploaded?x=1`)?.id).toBe("episodeUploaded");
    expect(matchOperation("DELETE", "/api/v1/transcribe/keys")?.id).toBe("revokeFreeKey");
    expect(matchOperation("GET", `/api/v1/transcribe/${ID}`)?.id).toBe("getFreeTranscription");
    expect(matchOperation("HEAD", "/api/v1/me")?.id).toBe("getMe");
    expect(matchOperation("DELETE", "/api/v1/episodes")).toBeUndefined();
  });

  it("passes answers that match and names the field and rule of those that do not", () => {
    expect(contractProblem("DELETE", `/api/v1/webhooks/${ID}`, 200, { id: ID, deleted: true })).toBeUndefined();
    expect(contractProblem("DELETE", `/api/v1/webhooks/${ID}`, 200, { id: ID, deleted: "yes" })).toMatch(
      /deleteWebhook's 200 schema[\s\S]*\/deleted must be equal to constant/,
    );
    expect(contractProblem("GET", "/api/v1/styles", 200, { styles: [{ id: "x", name: "X" }] })).toMatch(
      /\/styles\/0 must have required property 'description'/,
    );
    expect(contractProblem("GET", "/api/v1/styles", 200, "<html>")).toMatch(/not JSON/);
  });

  it("checks errors against the Error schema, on unknown routes too, and refuses undocumented statuses", () => {
    expect(
      contractProblem("GET", `/api/v1/episodes/${ID}`, 404, { error: { code: "not_found", message: "no" } }),
    ).toBeUndefined();
    expect(contractProblem("GET", `/api/v1/episodes/${ID}`, 404, { message: "no" })).toMatch(
      /Error|required property 'error'/,
    );
    expect(
      contractProblem("PUT", "/api/v1/episodes", 405, { error: { code: "method_not_allowed", message: "no" } }),
    ).toBeUndefined();
    expect(contractProblem("GET", "/api/v1/nowhere", 200, {})).toMatch(/no operation in the OpenAPI document/);
    expect(contractProblem("GET", "/api/v1/styles", 500, { error: { code: "internal", message: "x" } })).toMatch(
      /listStyles does not document status 500/,
    );
  });
});
