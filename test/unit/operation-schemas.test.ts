// A start no longer compiles the operations' schemas (each is compiled on its operation's first
// call), so a schema Ajv cannot compile would only show when somebody calls it. Here every
// operation's body, query and path schemas are compiled, as a call would compile them.
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { compileChecks } from "../../facade/core/run-operation.js";
import { readTranscriptFile } from "../../facade/mcp/resources.js";
import type { Operation } from "../../facade/registry.js";

describe("operation schemas", () => {
  it("compile for every operation in the registry", () => {
    const failed: string[] = [];
    for (const op of [...OPERATIONS, readTranscriptFile]) {
      try {
        compileChecks(op);
      } catch (err) {
        failed.push(`${op.id}: ${(err as Error).message}`);
      }
    }
    expect(failed).toEqual([]);
    expect(OPERATIONS.length).toBeGreaterThan(20);
  });

  it("are refused when Ajv cannot compile them (what the test above would catch)", () => {
    const broken = { ...OPERATIONS[0]!, body: { type: "object", properties: { a: { type: "no-such-type" } } } };
    expect(() => compileChecks(broken as unknown as Operation)).toThrow(/type/);
  });
});
