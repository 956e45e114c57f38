// Which engine a transcribe step gets: its own `engine`, else the site's `transcribe.engine`,
// else the `auto` order (whisper with a real model, openai with a key, pocketsphinx).
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { pickEngine } from "../../plugins/transcribe/_pick.js";

const log = pino({ level: "silent" });
const signal = new AbortController().signal;

describe("transcribe engine choice", async () => {
  const data_dir = await mkdtemp(path.join(os.tmpdir(), "clipd-pick-")); // no whisper models here
  const withKey = { data_dir, openai: { api_key: "sk-unused", base_url: "http://127.0.0.1:9/v1" } };
  const pick = async (engine: string | undefined, config: Record<string, any>) => {
    const e = await pickEngine({ engine: engine as any }, { config, log, signal });
    await e.close();
    return e.name;
  };

  it("auto picks openai when a key is configured, else pocketsphinx", async () => {
    expect(await pick("auto", withKey)).toBe("openai");
    expect(await pick(undefined, { data_dir })).toBe("pocketsphinx");
  });

  it("a step's auto takes the site's transcribe.engine", async () => {
    expect(await pick("auto", { ...withKey, transcribe: { engine: "pocketsphinx" } })).toBe("pocketsphinx");
    expect(await pick("auto", { ...withKey, transcribe: { engine: "auto" } })).toBe("openai");
  });

  it("a step's own engine wins over the site's", async () => {
    expect(await pick("openai", { ...withKey, transcribe: { engine: "pocketsphinx" } })).toBe("openai");
  });
});
