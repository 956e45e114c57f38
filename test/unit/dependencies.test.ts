// The import rules of .dependency-cruiser.cjs hold for the whole source tree, and they do catch a
// wrong import: a plugin file that reaches into the facade, written for the test and removed.
import { rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { cruise } from "dependency-cruiser";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/cli.js";

const rules = createRequire(import.meta.url)(path.join(repoRoot, ".dependency-cruiser.cjs"));
const SOURCES = ["daemon", "plugins", "facade", "config"];

async function violations(files = SOURCES) {
  const cwd = process.cwd();
  process.chdir(repoRoot); // the rules are paths relative to the repository root
  try {
    const { output } = await cruise(files, {
      ...rules.options,
      ruleSet: { forbidden: rules.forbidden },
      validate: true,
    });
    return (output as any).summary.violations.map((v: any) => `${v.rule.name}: ${v.from} → ${v.to}`) as string[];
  } finally {
    process.chdir(cwd);
  }
}

describe("dependency rules", () => {
  const probe = path.join(repoRoot, "plugins", "zz-dependency-probe.ts");
  afterEach(() => rm(probe, { force: true }));

  it("hold for the source tree", async () => {
    expect(await violations()).toEqual([]);
  });

  it("fail on a plugin that imports the facade", async () => {
    await writeFile(probe, `import { createFacade } from "../facade/app.js";\nexport const x = createFacade;\n`);
    expect(await violations([...SOURCES])).toContain(
      "plugins-use-the-contract: plugins/zz-dependency-probe.ts → facade/app.ts",
    );
  });
});
