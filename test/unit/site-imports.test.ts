// The website (web/) runs in the browser and reaches clipd only over HTTP: .dependency-cruiser.cjs
// forbids it any server import (rule web-stands-alone). The rule holds for web/ and catches a
// wrong import, written for the test and removed.
import { rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { cruise } from "dependency-cruiser";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/cli.js";

const rules = createRequire(import.meta.url)(path.join(repoRoot, ".dependency-cruiser.cjs"));

async function violations(): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(repoRoot); // the rules are paths relative to the repository root
  try {
    const { output } = await cruise(["web"], {
      ...rules.options,
      ruleSet: { forbidden: rules.forbidden },
      validate: true,
    });
    return (output as any).summary.violations.map((v: any) => `${v.rule.name}: ${v.from} → ${v.to}`);
  } finally {
    process.chdir(cwd);
  }
}

describe("web/ imports", () => {
  const probe = path.join(repoRoot, "web", "src", "zz-import-probe.ts");
  afterEach(() => rm(probe, { force: true }));

  it("hold the rule", async () => {
    expect(await violations()).toEqual([]);
  });

  it("fail on a web file that imports server code", async () => {
    await writeFile(probe, `import { siteOr } from "../../facade/site.js";\nexport const x = siteOr;\n`);
    expect(await violations()).toContain("web-stands-alone: web/src/zz-import-probe.ts → facade/site.ts");
  });
});
