// The llm engine's prompt, schema and checks for sub-scores, titles and briefs, against the FAKE
// OpenAI-compatible chat server in test/helpers (no real endpoint can be reached here).
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answersTo } from "../../plugins/find-clips/brief.js";
import { findClips, prepare } from "../../plugins/find-clips/heuristic.js";
import findClipsStage, { resolveLimits } from "../../plugins/find-clips/index.js";
import { checkProposals } from "../../plugins/find-clips/llm.js";
import { checkScores, titleProblem } from "../../plugins/find-clips/llm-prompt.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { makeStageCtx, type TestStageCtx } from "../helpers/stage-ctx.js";

const episode = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../fixtures/labelled/startup-pricing.json"), "utf8"),
);
const [story] = episode.labels as Array<{ start: number; end: number }>;
const scores = {
  hook: { value: 88, reason: "opens on a number" },
  coherence: { value: 120, reason: "one speaker, one story " },
  payoff: { value: 75, reason: "ends on what they learnt" },
  delivery: { value: 60, reason: "steady pace" },
};

describe("llm engine: sub-scores, titles and briefs", () => {
  let fake: FakeOpenAI | undefined;
  let ctx: TestStageCtx | undefined;
  afterEach(async () => {
    await fake?.close();
    await ctx?.cleanup();
    fake = ctx = undefined;
  });

  it("asks for the four sub-scores and the title rules, and keeps valid ones", async () => {
    fake = await startFakeOpenAI({
      chat: {
        answer: {
          clips: [
            {
              start: story.start,
              end: story.end,
              title: "What doubling our price taught us",
              reason: "a story",
              score: 85,
              scores,
            },
          ],
        },
      },
    });
    ctx = await makeStageCtx(
      { engine: "llm", count: 3 },
      { config: { llm: { base_url: fake.baseURL, api_key: "k", model: "fake-chat", retries: 0 } } },
    );
    const out = await findClipsStage.run(episode, ctx);
    expect(out.engine_used).toBe("llm");
    expect(out.clips[0].title).toBe("What doubling our price taught us");
    // Clamped to 0–100, reasons trimmed.
    expect(out.clips[0].scores).toEqual({ ...scores, coherence: { value: 100, reason: "one speaker, one story" } });
    const body = fake.chatRequests[0]!.body;
    const item = body.response_format.json_schema.schema.properties.clips.items;
    expect(item.properties.scores.required).toEqual(["hook", "coherence", "payoff", "delivery"]);
    expect(item.properties.title.description).toMatch(/3 to 8 words/);
    expect(body.messages[0].content).toMatch(/hook, coherence, payoff and delivery/);
    expect(body.messages[0].content).toMatch(/sponsor read/);
  });

  it("replaces a title that breaks the rules and sub-scores that are incomplete with the heuristic's", () => {
    expect(titleProblem("Pricing")).toMatch(/1 word/);
    expect(titleProblem("Try acme.com today for free")).toMatch(/web address/);
    expect(titleProblem("Why Acme changed everything", new Set(["acme"]))).toMatch(/sponsor/);
    expect(titleProblem("Why we doubled our price")).toBeUndefined();
    expect(checkScores({ hook: scores.hook })).toBeUndefined();
    const limits = { ...resolveLimits({}), seed: "s", duration: episode.duration };
    const p = prepare(episode, limits);
    const { clips } = checkProposals(
      [{ start: story.start, end: story.end, title: "Price", reason: "x", score: 70, scores: { hook: scores.hook } }],
      p,
      limits,
    );
    expect(clips[0]!.title.split(/\s+/).length).toBeGreaterThan(0);
    expect(clips[0]!.title).not.toBe("Price");
    expect(Object.keys(clips[0]!.scores ?? {})).toEqual(["hook", "coherence", "payoff", "delivery"]);
  });

  it("answers a brief with a listed clip when the model returns its span", () => {
    const limits = { ...resolveLimits({}), seed: "s", duration: episode.duration };
    const p = prepare(episode, limits);
    const listed = findClips(episode, limits, p);
    const target = listed.find((c) => c.start <= story.start + 1 && c.end >= story.end - 1) ?? listed[0]!;
    const about = "doubling the price";
    const { clips } = checkProposals(
      [{ start: target.start, end: target.end, title: "x", reason: "y", score: 80, scores }],
      p,
      { ...limits, about, existing: listed },
    );
    expect(clips).toHaveLength(listed.length);
    expect(answersTo(clips, about).map((c) => [c.number, c.ref])).toEqual([[target.number, target.ref]]);
  });
});
