// The llm engine against the fake OpenAI-compatible server on loopback: valid spans become clips,
// invented or out-of-limit spans are rejected, and a failing server falls back to the heuristic.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { prepare } from "../../plugins/find-clips/heuristic.js";
import findClipsStage, { resolveLimits } from "../../plugins/find-clips/index.js";
import { checkProposals, DEFAULT_CHAT_MODEL, llmSettings } from "../../plugins/find-clips/llm.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const episode = JSON.parse(readFileSync(path.join(here, "../fixtures/labelled/startup-pricing.json"), "utf8"));
const [story, claim] = episode.labels as Array<{ start: number; end: number }>;

describe("find-clips llm engine", () => {
  let fake: FakeOpenAI | undefined;
  let ctx: TestStageCtx | undefined;
  afterEach(async () => {
    await fake?.close();
    await ctx?.cleanup();
    fake = ctx = undefined;
  });

  const llmCtx = (f: FakeOpenAI, extra: Record<string, unknown> = {}) =>
    makeStageCtx(
      { engine: "llm", count: 5 },
      {
        config: {
          llm: { base_url: f.baseURL, api_key: "test-key", model: "fake-chat", retries: 1, retry_min_ms: 10, ...extra },
        },
      },
    );

  it("turns a valid answer into those clips, snapped to the sentence boundaries", async () => {
    fake = await startFakeOpenAI({
      chat: {
        answer: {
          clips: [
            {
              start: claim.start,
              end: claim.end,
              title: "Price on value, not cost",
              reason: "a bold claim with numbers",
              score: 90,
            },
            // 0.3 s off both ends: within the snap tolerance.
            {
              start: story.start + 0.3,
              end: story.end - 0.3,
              title: "We doubled our price",
              reason: "a story with a twist",
              score: 80,
            },
          ],
        },
      },
    });
    ctx = await llmCtx(fake);
    const out = await findClipsStage.run(episode, ctx);
    expect(out.engine_used).toBe("llm");
    expect(out.fallback_reason).toBeNull();
    expect(out.clips.map((c: any) => [c.number, c.title])).toEqual([
      [1, "Price on value, not cost"],
      [2, "We doubled our price"],
    ]);
    const [a, b] = out.clips;
    expect(a.start).toBeLessThanOrEqual(claim.start);
    expect(claim.start - a.start).toBeLessThan(0.2);
    expect(a.end).toBeGreaterThanOrEqual(claim.end);
    expect(b.start).toBeLessThanOrEqual(story.start);
    expect(story.start - b.start).toBeLessThan(0.2);
    expect(b.hook).toBe("Let me tell you what happened when we doubled our price.");
    expect(a.score).toMatchObject({ value: 90 });
    expect(a.score.reasons[0]).toBe("fake-chat: a bold claim with numbers");
    // What went over the wire: the model, JSON-schema output and numbered, timed sentences.
    const req = fake.chatRequests[0];
    expect(req.auth).toBe("Bearer test-key");
    expect(req.body.model).toBe("fake-chat");
    expect(req.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "clips", strict: true },
    });
    expect(req.body.response_format.json_schema.schema.properties.clips.items.required).toEqual([
      "start",
      "end",
      "title",
      "reason",
      "score",
      "scores",
    ]);
    const user = req.body.messages.find((m: any) => m.role === "user").content as string;
    expect(user).toMatch(/between 30 and 150 seconds/);
    expect(user).toMatch(/^\[0\] 0\.60–\d+\.\d\d S1: Hey everyone, welcome back/m);
    const saved = JSON.parse((await ctx.storage.read(out.clips_key)).toString());
    expect(saved).toMatchObject({
      engine: "llm",
      engine_used: "llm",
      llm: { model: "fake-chat", proposed: 2, accepted: 2, rejected: [] },
    });
  });

  it("rejects invented, too long and overlapping spans, keeping the valid one", async () => {
    fake = await startFakeOpenAI({
      chat: {
        answer: {
          clips: [
            { start: 37.777, end: 91.111, title: "Invented", reason: "times that are nowhere", score: 99 },
            { start: claim.start, end: claim.end, title: "The valid pricing claim", reason: "ok", score: 70 },
            { start: claim.start, end: claim.end, title: "Again", reason: "duplicate", score: 60 },
            {
              start: episode.words[0].start,
              end: episode.words.at(-1).end,
              title: "Everything",
              reason: "too long",
              score: 50,
            },
          ],
        },
      },
    });
    ctx = await llmCtx(fake);
    const out = await findClipsStage.run(episode, ctx);
    expect(out.engine_used).toBe("llm");
    expect(out.clips.map((c: any) => c.title)).toEqual(["The valid pricing claim"]);
    const saved = JSON.parse((await ctx.storage.read(out.clips_key)).toString());
    expect(saved.llm.rejected.map((r: any) => r.reason)).toEqual([
      expect.stringMatching(/start 37\.78 is not the start of a sentence/),
      "overlaps a clip already chosen",
      expect.stringMatching(/length .* is outside 30–150 s/),
    ]);
  });

  it("falls back to the heuristic when every span is invented", async () => {
    fake = await startFakeOpenAI({
      chat: { answer: { clips: [{ start: 12.345, end: 67.891, title: "Made up", reason: "x", score: 90 }] } },
    });
    ctx = await llmCtx(fake);
    const out = await findClipsStage.run(episode, ctx);
    expect(out.engine_used).toBe("heuristic");
    expect(out.fallback_reason).toMatch(/no valid clip \(1 proposed: start 12\.35 is not the start of a sentence/);
    expect(out.clips.length).toBeGreaterThan(0);
    expect(out.clips.every((c: any) => !c.score.reasons[0].startsWith("fake-chat"))).toBe(true);
  });

  it("falls back to the heuristic when the server fails, after retrying", async () => {
    fake = await startFakeOpenAI({ chat: { failFirst: -1, failStatus: 500 } });
    ctx = await llmCtx(fake, { retries: 2 });
    const out = await findClipsStage.run(episode, ctx);
    expect(fake.chatRequests).toHaveLength(3);
    expect(out.engine_used).toBe("heuristic");
    expect(out.fallback_reason).toMatch(/llm request failed: 500/);
    expect(out.clips.length).toBeGreaterThan(0);
  });

  it("does not retry a refused request (4xx) and falls back", async () => {
    fake = await startFakeOpenAI({ chat: { failFirst: -1, failStatus: 401 } });
    ctx = await llmCtx(fake, { retries: 3 });
    const out = await findClipsStage.run(episode, ctx);
    expect(fake.chatRequests).toHaveLength(1);
    expect(out.fallback_reason).toMatch(/401/);
  });

  it("recovers from one transient failure, and falls back on an answer that is not JSON", async () => {
    fake = await startFakeOpenAI({
      chat: {
        failFirst: 1,
        failStatus: 503,
        answer: { clips: [{ start: story.start, end: story.end, title: "T", reason: "r", score: 60 }] },
      },
    });
    ctx = await llmCtx(fake);
    expect(await findClipsStage.run(episode, ctx)).toMatchObject({ engine_used: "llm" });
    await fake.close();
    fake = await startFakeOpenAI({ chat: { answer: "Sure! Here are some clips: ..." } });
    ctx.config = { llm: { base_url: fake.baseURL, api_key: "k", retries: 0 } };
    const out = await findClipsStage.run(episode, ctx);
    expect(out).toMatchObject({ engine_used: "heuristic", fallback_reason: expect.stringMatching(/not JSON/) });
  });

  it("uses openai.* settings when llm.* is absent, and falls back when nothing is configured", async () => {
    fake = await startFakeOpenAI({
      chat: { answer: { clips: [{ start: story.start, end: story.end, title: "T", reason: "r", score: 60 }] } },
    });
    ctx = await makeStageCtx(
      { engine: "llm" },
      { config: { openai: { base_url: fake.baseURL, api_key: "oa-key", model: "whisper-1" } } },
    );
    expect(await findClipsStage.run(episode, ctx)).toMatchObject({ engine_used: "llm" });
    expect(fake.chatRequests[0]).toMatchObject({ auth: "Bearer oa-key", body: { model: DEFAULT_CHAT_MODEL } });
    expect(
      llmSettings({ llm: { model: "m" }, openai: { base_url: "http://x/v1", api_key: "", model: "gpt-x" } }),
    ).toMatchObject({ baseURL: "http://x/v1", apiKey: "none", model: "m" });
    expect(llmSettings({ openai: { base_url: "", api_key: "" } })).toBeUndefined();
    ctx.config = {};
    const out = await findClipsStage.run(episode, ctx);
    expect(out).toMatchObject({ engine_used: "heuristic", fallback_reason: expect.stringMatching(/not configured/) });
  });

  it("checks proposals against existing clips in search mode", () => {
    const limits = resolveLimits({});
    const p = prepare(episode, { ...limits });
    const existing = [
      {
        number: 1,
        ref: "cabc",
        title: "x",
        hook: "x",
        start: claim.start - 0.1,
        end: claim.end + 0.2,
        duration: 40,
        pieces: [],
        score: { value: 50, reasons: [] },
      },
    ];
    const r = checkProposals(
      [
        { start: claim.start, end: claim.end, title: "dup", reason: "", score: 90 },
        { start: story.start, end: story.end, title: "A new pricing story", reason: "", score: 80 },
      ],
      p,
      { ...limits, seed: "s", existing, about: "pricing" },
    );
    expect(r.clips.map((c) => [c.number, c.title])).toEqual([
      [1, "x"],
      [2, "A new pricing story"],
    ]);
    expect(r.clips[1].about).toBe("pricing");
    // With a brief, the span that is the listed clip answers it: marked, not rejected.
    expect(r.clips.map((c) => c.answers)).toEqual([[{ about: "pricing", rank: 0 }], [{ about: "pricing", rank: 1 }]]);
    expect(r.rejected).toEqual([]);
  });
});
