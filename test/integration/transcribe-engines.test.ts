// The whisper and openai engines and the auto rule. whisper runs the real binding with the
// weightless for-tests model (it loads and decodes but recognises nothing); openai runs against a
// fake OpenAI-compatible server on loopback, since the paid API can't run here.
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import stage from "../../plugins/transcribe/index.js";
import type { Transcript } from "../../daemon/render/captions.js";
import { parseSilences, planChunks } from "../../daemon/render/audio.js";
import { resolveAuto } from "../../plugins/transcribe/_pick.js";
import { listModels, MODELS, pullModel } from "../../plugins/transcribe/engines/models.js";
import { parsePocketsphinx } from "../../plugins/transcribe/engines/pocketsphinx.js";
import { tokensToWords } from "../../plugins/transcribe/engines/whisper.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { speechFixture } from "../fixtures/speech.js";
import { fixtureMedia, fixtureModel } from "../helpers/media.js";

const whisperBinding = await import("smart-whisper" as string).then(
  () => true,
  () => false,
);

let ctx: TestStageCtx | undefined;
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await ctx?.cleanup();
  await fake?.close();
  ctx = fake = undefined;
});

async function withSource(file: string, options: Record<string, unknown>, config: Record<string, any> = {}) {
  ctx = await makeStageCtx(options, { config });
  const key = `runs/${ctx.runId}/source${path.extname(file)}`;
  await ctx.storage.putFile(key, file);
  return { key, ctx };
}

describe("engine output parsing", () => {
  it("reads pocketsphinx word lines and drops markers, fillers and variant suffixes", () => {
    const out = [
      "and so my",
      "<s> 0.000 0.040 0.998900",
      "and(2) 0.050 0.160 0.5",
      "<sil> 0.2 0.3 0.9",
      "[NOISE] 0.3 0.4 0.2",
      "so 0.41 0.6 1.0003",
      "my 0.61 0.9",
      "</s> 1.0 1.1 1.0",
    ].join("\n");
    expect(parsePocketsphinx(out)).toEqual([
      { text: "and", start: 0.05, end: 0.16, confidence: 0.5 },
      { text: "so", start: 0.41, end: 0.6, confidence: 1 },
      { text: "my", start: 0.61, end: 0.9, confidence: 1 },
    ]);
  });

  it("joins whisper sub-word tokens into words and skips special tokens", () => {
    const words = tokensToWords([
      {
        from: 0,
        to: 2000,
        text: " And so Americans",
        tokens: [
          { text: "[_BEG_]", id: 50364, p: 1, from: 0, to: 0 },
          { text: " And", id: 1, p: 0.9, from: 0, to: 300 },
          { text: " so", id: 2, p: 0.8, from: 300, to: 600 },
          { text: " Amer", id: 3, p: 0.6, from: 700, to: 1000 },
          { text: "icans", id: 4, p: 1.0, from: 1000, to: 1400 },
          { text: "[_TT_70]", id: 50434, p: 1, from: 1400, to: 1400 },
        ],
      },
    ]);
    expect(words).toEqual([
      { text: "And", start: 0, end: 0.3, confidence: 0.9 },
      { text: "so", start: 0.3, end: 0.6, confidence: 0.8 },
      { text: "Americans", start: 0.7, end: 1.4, confidence: 0.8 },
    ]);
  });
});

describe("chunk planning", () => {
  it("cuts in the middle of the silence nearest the target and covers the whole duration", () => {
    const silences = parseSilences(
      "[silencedetect] silence_start: 55.2\n[silencedetect] silence_end: 56.0 | silence_duration: 0.8\n" +
        "[silencedetect] silence_start: 64\n[silencedetect] silence_end: 64.4 | silence_duration: 0.4\n" +
        "[silencedetect] silence_start: 130.5\n",
      150,
    );
    expect(silences).toEqual([
      { start: 55.2, end: 56 },
      { start: 64, end: 64.4 },
      { start: 130.5, end: 150 },
    ]);
    const chunks = planChunks(150, silences, 60);
    expect(chunks[0]).toEqual({ start: 0, end: 55.6 });
    expect(chunks.at(-1)!.end).toBe(150);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBe(chunks[i - 1]!.end);
    expect(planChunks(30, [], 60)).toEqual([{ start: 0, end: 30 }]);
  });
});

describe("models", () => {
  it("lists official models with sha256 and tells stubs from real models", async () => {
    expect(MODELS.every((m) => /^[0-9a-f]{64}$/.test(m.sha256) && m.url.endsWith(`ggml-${m.name}.bin`))).toBe(true);
    ctx = await makeStageCtx();
    const dataDir = path.join(ctx.workdir, "data");
    await mkdir(path.join(dataDir, "models"), { recursive: true });
    await copyFile(
      fixtureModel("for-tests-ggml-tiny.en.bin"),
      path.join(dataDir, "models", "for-tests-ggml-tiny.en.bin"),
    );
    await copyFile(fixtureModel("for-tests-ggml-tiny.en.bin"), path.join(dataDir, "models", "ggml-tiny.en.bin"));
    const listed = await listModels(dataDir);
    expect(listed.map((m) => [m.name, m.real])).toEqual([
      ["for-tests-ggml-tiny.en", false],
      ["tiny.en", false],
    ]);
    expect(await resolveAuto({ data_dir: dataDir })).toEqual({ engine: "pocketsphinx" });
    expect(await resolveAuto({ data_dir: dataDir, openai: { api_key: "k", model: "whisper-1" } })).toEqual({
      engine: "openai",
      model: "whisper-1",
    });
    // A file big enough to be a real model makes auto choose whisper.
    await writeFile(path.join(dataDir, "models", "ggml-base.en.bin"), Buffer.alloc(11 * 1024 * 1024));
    expect(await resolveAuto({ data_dir: dataDir, openai: { api_key: "k" } })).toEqual({
      engine: "whisper",
      model: "base.en",
    });
  });

  it("explains where to put the file when the download fails", async () => {
    ctx = await makeStageCtx();
    // Port 1 on loopback: refused at once, as a machine without a route to the host is.
    await expect(pullModel("tiny.en", ctx.workdir, { host: "http://127.0.0.1:1" })).rejects.toThrow(
      /offline.*put it at .*ggml-tiny\.en\.bin \(sha256 921e4cf8/,
    );
    await expect(pullModel("nope", ctx.workdir)).rejects.toThrow(/unknown whisper model/);
  });
});

describe("whisper engine", () => {
  it("reports a missing model file clearly instead of crashing", async () => {
    const { key, ctx } = await withSource(
      fixtureMedia("jfk.wav"),
      { engine: "whisper", model: "tiny.en" },
      { data_dir: "does-not-exist" },
    );
    await expect(stage.run({ source: { key } }, ctx)).rejects.toMatchObject({
      code: "model_missing",
      retryable: false,
    });
  });

  it.skipIf(whisperBinding)("names the install command when the binding is absent", async () => {
    const { key, ctx } = await withSource(fixtureMedia("jfk.wav"), {
      engine: "whisper",
      model: fixtureModel("for-tests-ggml-tiny.en.bin"),
    });
    await expect(stage.run({ source: { key } }, ctx)).rejects.toThrow(/npm install smart-whisper/);
  });

  it.skipIf(!whisperBinding)("loads and decodes with the weightless model, which hears no speech", async () => {
    const { key, ctx } = await withSource(fixtureMedia("jfk.wav"), {
      engine: "whisper",
      model: fixtureModel("for-tests-ggml-tiny.en.bin"),
    });
    const t0 = performance.now();
    const err = await stage.run({ source: { key } }, ctx).catch((e) => e);
    console.log(`whisper (weightless tiny.en) on jfk.wav: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    expect(err).toMatchObject({ code: "no_speech", retryable: false });
    expect(err.message).toMatch(/whisper/);
  });
});

describe("openai engine against a fake server", () => {
  it("sends verbose_json with word and segment granularity and maps the answer", async () => {
    fake = await startFakeOpenAI();
    const { key, ctx } = await withSource(
      fixtureMedia("jfk.wav"),
      { engine: "openai" },
      { openai: { base_url: fake.baseURL, api_key: "sk-test" } },
    );
    const out = await stage.run({ source: { key } }, ctx);
    expect(out.transcript).toMatchObject({
      engine: "openai",
      model: "whisper-1",
      word_count: 2,
      preview: "Hello world.",
    });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.auth).toBe("Bearer sk-test");
    expect(req.fields).toMatchObject({ model: ["whisper-1"], response_format: ["verbose_json"], language: ["en"] });
    expect(req.fields["timestamp_granularities[]"]).toEqual(["word", "segment"]);
    expect(req.fileBytes).toBeGreaterThan(10_000);
    expect(req.fileBytes).toBeLessThan(25 * 1024 * 1024);
    const doc = JSON.parse((await ctx.storage.read(out.transcript.key)).toString()) as Transcript;
    expect(doc.words[0]).toEqual({ text: "Hello", start: 0.5, end: 0.9, confidence: 0.905 });
  });

  it("asks a diarizing model for diarized_json and keeps its speakers as S1, S2", async () => {
    fake = await startFakeOpenAI();
    const { key, ctx } = await withSource(
      fixtureMedia("jfk.wav"),
      { engine: "openai" },
      {
        openai: { base_url: fake.baseURL, api_key: "k", model: "gpt-4o-transcribe-diarize" },
      },
    );
    const out = await stage.run({ source: { key } }, ctx);
    const req = fake.requests[0]!;
    expect(req.fields).toMatchObject({
      model: ["gpt-4o-transcribe-diarize"],
      response_format: ["diarized_json"],
      chunking_strategy: ["auto"],
    });
    expect(req.fields["timestamp_granularities[]"]).toBeUndefined();
    const doc = JSON.parse((await ctx.storage.read(out.transcript.key)).toString()) as Transcript;
    // The segment's times are shared out over its words, in order, inside the segment.
    const first = doc.words.slice(0, 7);
    expect(first.map((w) => `${w.speaker}:${w.text}`)).toEqual([
      "S1:So",
      "S1:what",
      "S1:happened?",
      "S2:The",
      "S2:roof",
      "S2:fell",
      "S2:in.",
    ]);
    for (let i = 1; i < first.length; i++) expect(first[i]!.start).toBeGreaterThanOrEqual(first[i - 1]!.end);
    expect(first[0]!.start).toBeCloseTo(0.3, 2);
    expect(first[6]!.end).toBeLessThanOrEqual(3.7);
    // A change of speaker starts a segment.
    expect(doc.segments.slice(0, 2).map((s) => [s.speaker, s.text])).toEqual([
      ["S1", "So what happened?"],
      ["S2", "The roof fell in."],
    ]);
  });

  it("retries a server error with backoff, then succeeds", async () => {
    fake = await startFakeOpenAI({ failFirst: 2, failStatus: 503 });
    const { key, ctx } = await withSource(
      fixtureMedia("jfk.wav"),
      { engine: "openai" },
      {
        openai: { base_url: fake.baseURL, api_key: "k", retry_min_ms: 20 },
      },
    );
    const out = await stage.run({ source: { key } }, ctx);
    expect(out.transcript.word_count).toBe(2);
    expect(fake.requests).toHaveLength(3);
  });

  it("does not retry a refused key", async () => {
    fake = await startFakeOpenAI({ failFirst: 5, failStatus: 401 });
    const { key, ctx } = await withSource(
      fixtureMedia("jfk.wav"),
      { engine: "openai" },
      {
        openai: { base_url: fake.baseURL, api_key: "bad", retry_min_ms: 20 },
      },
    );
    await expect(stage.run({ source: { key } }, ctx)).rejects.toMatchObject({
      code: "engine_rejected",
      retryable: false,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("uploads long audio in chunks and offsets each chunk's words", async () => {
    fake = await startFakeOpenAI();
    const { file } = await speechFixture({ seconds: 180 });
    const { key, ctx } = await withSource(
      file,
      { engine: "openai", chunk_seconds: 60 },
      { openai: { base_url: fake.baseURL, api_key: "k" } },
    );
    const out = await stage.run({ source: { key } }, ctx);
    const doc = JSON.parse((await ctx.storage.read(out.transcript.key)).toString()) as Transcript;
    expect(fake.requests.length).toBeGreaterThanOrEqual(3);
    expect(doc.words).toHaveLength(2 * fake.requests.length);
    const starts = doc.words.filter((w) => w.text === "Hello").map((w) => w.start - 0.5);
    expect(starts[0]).toBe(0);
    for (let i = 1; i < starts.length; i++) {
      const len = starts[i]! - starts[i - 1]!;
      expect(len).toBeGreaterThan(35);
      expect(len).toBeLessThan(85);
    }
    expect(doc.words.at(-1)!.end).toBeLessThanOrEqual(doc.duration);
  });
});
