// `clipd stage find-clips --input transcript.json` through the real, built CLI: the transcript JSON
// file itself is the stage input, and the ranked clips come out as JSON on stdout.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, runClipd } from "../helpers/cli.js";

const TRANSCRIPT = path.join(repoRoot, "test/fixtures/labelled/startup-pricing.json");

describe("clipd stage find-clips", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "clipd-find-cli-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));
  const env = () => ({ ...process.env, CLIPD_DATA_DIR: dataDir, DATABASE_URL: "", CLIPD_CONFIG: "" });

  it("prints ranked clips for a transcript file, with target_seconds and about", async () => {
    const r = await runClipd(
      ["stage", "find-clips", "--input", TRANSCRIPT, "--set", "target_seconds=60", "--set", "about=doubled our price"],
      env(),
    );
    expect(r.code, r.output).toBe(0);
    const out = JSON.parse(r.output);
    expect(out.engine_used).toBe("heuristic");
    expect(out.clips.length).toBeGreaterThan(0);
    for (const c of out.clips) {
      expect(c.duration).toBeGreaterThanOrEqual(48);
      expect(c.duration).toBeLessThanOrEqual(72);
      expect(c.about).toBe("doubled our price");
    }
    expect(out.clips[0].hook).toMatch(/doubled our price/);

    const plain = await runClipd(["stage", "find-clips", "--input", TRANSCRIPT], env());
    expect(plain.code, plain.output).toBe(0);
    const clips = JSON.parse(plain.output).clips as Array<{
      start: number;
      end: number;
      duration: number;
      number: number;
    }>;
    expect(clips.map((c) => c.number)).toEqual(clips.map((_, i) => i + 1));
    for (const c of clips) {
      expect(c.duration).toBeGreaterThanOrEqual(30);
      expect(c.duration).toBeLessThanOrEqual(150);
    }
  });

  it("explains a bad input", async () => {
    const r = await runClipd(["stage", "find-clips", "--input", path.join(repoRoot, "package.json")], env());
    expect(r.code).toBe(1);
    expect(JSON.parse(r.output).error).toMatchObject({ code: "bad_input" });
  });
});
