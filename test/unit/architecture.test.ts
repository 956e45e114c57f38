// docs/architecture.md says where each named thing lives; every path it gives there must exist,
// so a file cannot move without the map moving with it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/cli.js";

const WANTED = [
  "webhook retry plan",
  "daily limits",
  "state transition",
  "SSRF rules",
  "caption line breaker",
  "ffmpeg runner",
  "new operation",
  "new stage",
];

describe("docs/architecture.md", () => {
  const doc = readFileSync(path.join(repoRoot, "docs", "architecture.md"), "utf8");
  const section = doc.split("## Where each thing lives")[1]?.split("\n## ")[0] ?? "";
  const rows = section
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| thing") && !l.startsWith("|---"));

  it("names a place for each thing the map must answer", () => {
    for (const w of WANTED)
      expect(
        rows.some((r) => r.includes(w)),
        w,
      ).toBe(true);
  });

  it("points only at files and folders that exist", () => {
    const paths = rows.flatMap((r) => [...r.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    expect(paths.length).toBeGreaterThanOrEqual(WANTED.length);
    for (const p of paths) expect(existsSync(path.join(repoRoot, p)), p).toBe(true);
  });
});

describe("daemon/ layout", () => {
  it("holds only rooms: every daemon file sits in a folder named for its concern", () => {
    const loose = readdirSync(path.join(repoRoot, "daemon"), { withFileTypes: true }).filter((e) => e.isFile());
    expect(loose.map((e) => e.name)).toEqual([]);
  });
});
