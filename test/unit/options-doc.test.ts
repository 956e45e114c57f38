// The option tables in the docs are generated from the stages' options schemas (the one place
// option names, limits, defaults and descriptions are written). This test regenerates every
// `<!-- options:<stage> -->` block and fails when the docs drift; CLIPD_UPDATE_DOCS=1 rewrites them.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describe, expect, expectTypeOf, it } from "vitest";
import { fillOptionTables, optionsMarkdown } from "../../daemon/cli/options-doc.js";
import { resolveOptions, type StageWith } from "../../daemon/engine/stage.js";
import type { CutOptions, CutOptionsSchema } from "../../plugins/cut/index.js";
import { BUILTIN_STAGES } from "../../daemon/boot/stages.js";

const root = path.resolve(import.meta.dirname, "../..");
const stages = new Map(BUILTIN_STAGES.map((s) => [s.name, s]));
const docs = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("stage option tables in the docs", () => {
  it("match the stages' schemas", () => {
    for (const file of docs) {
      const text = readFileSync(path.join(root, file), "utf8");
      const filled = fillOptionTables(text, stages);
      if (filled !== text && process.env.CLIPD_UPDATE_DOCS === "1") writeFileSync(path.join(root, file), filled);
      else
        expect(
          text,
          `${file}: an options table drifted from its schema; run CLIPD_UPDATE_DOCS=1 ` +
            `npx vitest run test/unit/options-doc.test.ts`,
        ).toBe(filled);
    }
  });

  it("show every built-in stage that takes options exactly once", () => {
    const shown = docs.flatMap((f) =>
      [...readFileSync(path.join(root, f), "utf8").matchAll(/<!-- options:([a-z-]+) -->/g)].map((m) => m[1]),
    );
    expect(shown.sort()).toEqual(BUILTIN_STAGES.map((s) => s.name).sort());
  });

  it("refuse a marker naming no stage", () => {
    expect(() => fillOptionTables("<!-- options:nope -->\n<!-- /options -->", stages)).toThrow(/unknown stage "nope"/);
  });
});

describe("stage options schemas", () => {
  it("describe every option, and compile in ajv as plain JSON Schema", () => {
    const ajv = new Ajv({ strict: false, useDefaults: true });
    for (const stage of BUILTIN_STAGES) {
      const props = (stage.options as { properties: Record<string, { description?: string }> }).properties;
      for (const [k, p] of Object.entries(props)) expect(p.description, `${stage.name}.${k}`).toBeTruthy();
      expect(() => ajv.compile(stage.options)).not.toThrow();
    }
  });

  it("fill the same defaults in resolveOptions as ajv useDefaults does in the runner", () => {
    const ajv = new Ajv({ strict: false, useDefaults: true });
    for (const stage of BUILTIN_STAGES) {
      const given: Record<string, unknown> = stage.name === "notify" ? { event: "a.b" } : {};
      const viaAjv = structuredClone(given);
      expect(ajv.compile(stage.options)(viaAjv)).toBe(true);
      expect(resolveOptions(stage.options as never, given), stage.name).toEqual(viaAjv);
    }
  });

  it("print a table with type, default and meaning", () => {
    const table = optionsMarkdown(stages.get("probe")!);
    expect(table).toContain("| option | type | default | meaning |");
    expect(table).toMatch(/\| `max_seconds` \| number \(> 0\) \| `10800` \| Longest accepted duration/);
    expect(optionsMarkdown(stages.get("notify")!)).toMatch(/\| `event` \| string \| required \|/);
  });

  it(
    "give run() a type with the defaulted options always set, and the with: " +
      "block a type where they may be left out",
    () => {
      expectTypeOf<CutOptions["width"]>().toEqualTypeOf<number>();
      expectTypeOf<CutOptions["fit"]>().toEqualTypeOf<"fill" | "whole" | "crop" | "blur" | "pad">();
      expectTypeOf<CutOptions["clip_ref"]>().toEqualTypeOf<string | undefined>();
      expectTypeOf<StageWith<typeof CutOptionsSchema>["width"]>().toEqualTypeOf<number | undefined>();
    },
  );
});
