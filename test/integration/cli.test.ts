// The clipd CLI as ops use it.
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, runClipd } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";
import { fixtureMedia, fixtureModel } from "../helpers/media.js";

const baseEnv = () => ({ ...process.env, CLIPD_DATA_DIR: "", DATABASE_URL: "", CLIPD_CONFIG: "" });

describe("clipd CLI", () => {
  it("pipelines lint passes on the shipped set and fails with file:line on a broken ops folder", async () => {
    const ok = await runClipd(["pipelines", "lint"], baseEnv());
    expect(ok.code).toBe(0);
    expect(ok.output).toMatch(/^ok: \d+ pipeline/m);
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-lint-"));
    await writeFile(
      path.join(dir, "c.yaml"),
      `pipelines: { ops_dir: ${path.join(repoRoot, "test/fixtures/broken-pipelines")} }\n`,
    );
    const bad = await runClipd(["pipelines", "lint"], { ...baseEnv(), CLIPD_CONFIG: path.join(dir, "c.yaml") });
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/bad-stage\.yaml:5: .*unknown stage "transmogrify"/);
    expect(bad.output).toMatch(/bad-yaml\.yaml:\d+: YAML/);
  });

  it("refuses to start on a broken pipeline, before taking any work", async () => {
    const d = await daemonEnv("pglite", {
      pipelines: { ops_dir: path.join(repoRoot, "test/fixtures/broken-pipelines") },
      plugins: [],
    });
    const r = await runClipd(["start"], d.env, { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.output).toMatch(/bad-stage\.yaml:5: .*unknown stage/);
  });

  it("lists pipelines and describes a stage's options", async () => {
    const list = await runClipd(["pipelines", "list"], baseEnv());
    expect(list.code).toBe(0);
    expect(list.output).toMatch(/transcript\s+fetch-source → probe → transcribe → notify/);
    const desc = await runClipd(["pipelines", "describe", "probe"], baseEnv());
    expect(desc.output).toMatch(/max_seconds\s+number\s+default 10800/);
    const md = await runClipd(["pipelines", "describe", "cut", "--markdown"], baseEnv());
    expect(md.output).toMatch(/^\| option \| type \| default \| meaning \|\n/);
    expect(md.output).toContain(
      "| `width` | integer (360–2160, multiple of 2) | `1080` | The frame's short " +
        "side (the width of 9:16, 1:1 and 4:5; the height of 16:9); the other side " +
        "follows `aspect_ratio`. |",
    );
    const all = await runClipd(["pipelines", "describe", "--markdown"], baseEnv());
    expect(all.output).toMatch(/### caption-burn[\s\S]*### transcribe\n/);
    const none = await runClipd(["pipelines", "describe", "nope"], baseEnv());
    expect(none.code).toBe(2);
    expect(none.output).toMatch(/unknown stage "nope"/);
  });

  it("models list shows the installed model files and the official ones to pull", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-models-"));
    await mkdir(path.join(dir, "models"));
    await cp(fixtureModel("for-tests-ggml-tiny.en.bin"), path.join(dir, "models", "for-tests-ggml-tiny.en.bin"));
    const r = await runClipd(["models", "list"], { ...baseEnv(), CLIPD_DATA_DIR: dir });
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/installed\s+for-tests-ggml-tiny\.en\s.*no weights/);
    expect(r.output).toMatch(/available\s+base\.en\s.*clipd models pull base\.en/);
    const bad = await runClipd(["models", "pull", "no-such-model"], { ...baseEnv(), CLIPD_DATA_DIR: dir });
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/unknown whisper model "no-such-model"/);
  });

  it("config print masks secrets; an invalid config names the key", async () => {
    const shown = await runClipd(["config", "print"], { ...baseEnv(), OPENAI_API_KEY: "sk-live-verysecret" });
    expect(shown.code).toBe(0);
    expect(shown.output).not.toMatch(/verysecret/);
    expect(JSON.parse(shown.output).openai.api_key).toBe("****");
    const bad = await runClipd(["config", "print"], { ...baseEnv(), PORT: "99999" });
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/server\.port/);
  });

  it("stage runs one stage alone on a JSON input and prints its output", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-stage-"));
    await mkdir(path.join(dir, "storage", "in"), { recursive: true });
    await cp(fixtureMedia("jfk.wav"), path.join(dir, "storage", "in", "jfk.wav"));
    await writeFile(path.join(dir, "input.json"), JSON.stringify({ source: { key: "in/jfk.wav", name: "jfk.wav" } }));
    const r = await runClipd(["stage", "probe", "--input", path.join(dir, "input.json"), "--set", "max_seconds=60"], {
      ...baseEnv(),
      CLIPD_DATA_DIR: dir,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.output);
    expect(out.media.kind).toBe("audio");
    expect(out.media.duration).toBeCloseTo(11, 0);
    const tooLong = await runClipd(
      ["stage", "probe", "--input", path.join(dir, "input.json"), "--set", "max_seconds=5"],
      { ...baseEnv(), CLIPD_DATA_DIR: dir },
    );
    expect(tooLong.code).toBe(1);
    expect(JSON.parse(tooLong.output).error.code).toBe("too_long");
  });

  it("run episode sends render options (style, caption_size, fit) to its clip " +
    "renders and refuses unknown ones at once", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-run-"));
    const env = { ...baseEnv(), CLIPD_DATA_DIR: dir };
    const out = path.join(dir, "out");
    const run = (...sets: string[]) =>
      runClipd(["run", "episode", fixtureMedia("jfk.wav"), "--out", out, ...sets.flatMap((s) => ["--set", s])], env, {
        timeoutMs: 240_000,
      });
    const unknown = await run("colour=red");
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(
      /no step of pipeline episode or of its clip renders \(pipeline clip\) takes option\(s\) colour/,
    );
    const refused = await run("fit=stretch");
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/option "fit" for stage cut/);
    expect(existsSync(out)).toBe(false); // refused before anything ran

    // width and preset keep the render cheap; they are render options too.
    const r = await run(
      "style=karaoke",
      "caption_size=large",
      "fit=whole",
      "render_top=1",
      "width=360",
      "preset=ultrafast",
    );
    expect(r.code, r.output).toBe(0);
    const summary = JSON.parse(await readFile(path.join(out, "run.json"), "utf8"));
    expect(summary.clips_rendered).toEqual([
      expect.objectContaining({
        state: "succeeded",
        look: expect.objectContaining({ style: "karaoke", caption_size: "large", fit: "whole" }),
      }),
    ]);
    expect((await readdir(out)).some((f) => /^clip-01-.*\.mp4$/.test(f))).toBe(true);
  }, 300_000);

  it("doctor checks the tools and prints a fix for anything missing", async () => {
    const r = await runClipd(["doctor"], {
      ...baseEnv(),
      CLIPD_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "clipd-doc-")),
    });
    expect(r.output).toMatch(/ok\s+ffmpeg libass/);
    expect(r.output).toMatch(/ok\s+pocketsphinx\s/);
    expect(r.output).toMatch(/ok\s+pocketsphinx en-us model/);
    expect(r.output).toMatch(/warn\s+speech: whisper models[^\n]*\n\s+fix: clipd models pull/);
    // The binding is installed here: the engine check loads it (it once looked one folder too shallow).
    expect(r.output).toMatch(/ok\s+speech: whisper engine\s+smart-whisper binding loads/);
    const noPath = await runClipd(["doctor"], {
      ...baseEnv(),
      PATH: "/nonexistent",
      CLIPD_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "clipd-doc-")),
    });
    expect(noPath.code).toBe(1);
    expect(noPath.output).toMatch(/FAIL\s+ffmpeg\s+not found\n\s+fix: apt-get update && apt-get install -y ffmpeg/);
  });
});
