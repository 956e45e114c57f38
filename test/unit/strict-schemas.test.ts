// Every JSON Schema clipd publishes (the OpenAPI document's, internal operations included, and each
// MCP tool's input and output schema) compiles under a strict JSON Schema 2020-12 validator: no
// unknown keyword such as the "x-extension" marker once written into 22 schema places (issue 36).
// Extensions are marked where validators accept it: "x-extension" on OpenAPI operations, and an
// "Extension:" description in a schema.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../facade/app.js";
import { isToolOperation, toolDefinition } from "../../facade/mcp/tools.js";
import { toOpenApi } from "../../facade/openapi.js";

/** Every schema of the document: components, parameters, headers, request and response bodies. */
function schemasOf(doc: any): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [p, methods] of Object.entries<any>(doc.paths))
    for (const [m, op] of Object.entries<any>(methods)) {
      const at = `${m.toUpperCase()} ${p}`;
      for (const prm of op.parameters ?? []) out.push([`${at} parameter ${prm.name}`, prm.schema]);
      for (const [t, c] of Object.entries<any>(op.requestBody?.content ?? {})) out.push([`${at} body ${t}`, c.schema]);
      for (const [status, r] of Object.entries<any>(op.responses ?? {}))
        for (const [t, c] of Object.entries<any>(r.content ?? {})) out.push([`${at} ${status} ${t}`, c.schema]);
    }
  return out.filter(([, s]) => s !== undefined);
}

const strict = (doc?: any) => {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, allErrors: false });
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries<any>(doc?.components?.schemas ?? {}))
    ajv.addSchema(local(schema), `component-${name}`);
  return ajv;
};
/** A schema whose references to the document's components name them as added to the validator. */
const local = (s: unknown) =>
  JSON.parse(JSON.stringify(s).replace(/"#\/components\/schemas\/(\w+)"/g, '"component-$1"'));

describe("published schemas under a strict validator", () => {
  it("the OpenAPI document's schemas compile", () => {
    const doc = toOpenApi(OPERATIONS, { version: "test", includeInternal: true });
    const ajv = strict(doc);
    const refused: string[] = [];
    for (const [where, schema] of schemasOf(doc))
      try {
        ajv.compile(local(schema));
      } catch (err) {
        refused.push(`${where}: ${(err as Error).message}`);
      }
    expect(refused).toEqual([]);
    expect(JSON.stringify(doc)).not.toMatch(/"x-extension":true/);
  });

  it("every MCP tool's input and output schema compiles", () => {
    const ajv = strict();
    const refused: string[] = [];
    for (const op of OPERATIONS.filter(isToolOperation)) {
      const def = toolDefinition(op);
      for (const [which, schema] of [
        ["input", def.inputSchema],
        ["output", def.outputSchema],
      ] as const)
        try {
          if (schema) ajv.compile(schema);
        } catch (err) {
          refused.push(`${def.name} ${which}: ${(err as Error).message}`);
        }
    }
    expect(refused).toEqual([]);
  });
});
