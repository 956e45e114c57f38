// The OAuth consent page says what each scope lets an app do (SCOPE_WORDS). Issue 36: it said
// clips.read could see transcripts, while get_transcript and the transcript resources need the
// transcripts scope. The words must name transcripts exactly for the scopes whose tools read them.
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { readTranscriptFile } from "../../facade/mcp/resources.js";
import { isToolOperation } from "../../facade/mcp/tools.js";
import { SCOPE_WORDS } from "../../facade/operations/oauth-consent.js";

describe("the consent page's words for each scope", () => {
  it("name transcripts for the scope that reads them, and for no other", () => {
    const ops = [...OPERATIONS.filter(isToolOperation), readTranscriptFile];
    const readsTranscripts = new Set(
      ops.filter((op) => op.method === "GET" && /transcript/i.test(op.id)).map((op) => op.scope),
    );
    expect(readsTranscripts.size).toBeGreaterThan(0);
    for (const [scope, words] of Object.entries(SCOPE_WORDS))
      expect(/transcript/i.test(words), `${scope}: "${words}"`).toBe(readsTranscripts.has(scope));
  });

  it("name brand kits for the scope that reads them", () => {
    const kits = OPERATIONS.filter((op) => isToolOperation(op) && op.method === "GET" && /BrandKit/.test(op.id));
    for (const op of kits) expect(SCOPE_WORDS[op.scope as keyof typeof SCOPE_WORDS]).toMatch(/brand kits/);
  });
});
