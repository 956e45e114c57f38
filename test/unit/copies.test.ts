// No block of real logic is written twice in the sources: jscpd (.jscpd.json: 8 lines and 70
// tokens or more, migrations aside) must find no clone. Generated tables belong in one place.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/cli.js";

describe("copy-paste check", () => {
  it("finds no block written twice", () => {
    const bin = path.join(repoRoot, "node_modules", "jscpd", "bin", "jscpd");
    const r = spawnSync(process.execPath, [bin, "--config", ".jscpd.json"], { cwd: repoRoot, encoding: "utf8" });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/Found 0 clones|0 exact clones/);
  });
});
