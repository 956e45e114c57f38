/**
 * Engine choice. A step's `engine` wins; a step's `auto` takes config `transcribe.engine`. `auto`:
 * whisper when a real model is installed in `<data_dir>/models` (not the weightless for-tests
 * stub), else openai when `openai.api_key` is configured, else pocketsphinx.
 */
import type { StageContext } from "../../daemon/engine/stage.js";
import { pickInstalledModel } from "./engines/models.js";
import { defineOpenAIEngine } from "./engines/openai.js";
import { definePocketsphinxEngine } from "./engines/pocketsphinx.js";
import type { Engine, EngineContext } from "./engines/types.js";
import { defineWhisperEngine } from "./engines/whisper.js";

export type EngineChoice = "auto" | "pocketsphinx" | "whisper" | "openai";

export async function resolveAuto(
  // biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
  config: Readonly<Record<string, any>>,
  model?: string,
): Promise<{ engine: Exclude<EngineChoice, "auto">; model?: string }> {
  const wanted = model ?? config.whisper?.model;
  const local = await pickInstalledModel(config.data_dir ?? "data", wanted);
  if (local) return { engine: "whisper", model: local.name };
  if (config.openai?.api_key) return { engine: "openai", model: config.openai?.model };
  return { engine: "pocketsphinx" };
}

export async function pickEngine(
  opts: { engine?: EngineChoice; model?: string },
  ctx: Pick<StageContext, "config" | "log" | "signal">,
): Promise<Engine> {
  const ectx: EngineContext = { config: ctx.config ?? {}, log: ctx.log, signal: ctx.signal };
  // A step's `auto` defers to the site's choice (config transcribe.engine) when that names one.
  const site = ectx.config.transcribe?.engine as EngineChoice | undefined;
  let choice = opts.engine && opts.engine !== "auto" ? opts.engine : (site ?? "auto");
  let model = opts.model;
  if (choice === "auto") {
    const picked = await resolveAuto(ectx.config, opts.model);
    choice = picked.engine;
    model = picked.model;
  }
  switch (choice) {
    case "whisper":
      return defineWhisperEngine(ectx, { model });
    case "openai":
      return defineOpenAIEngine(ectx, { model });
    default:
      return definePocketsphinxEngine(ectx);
  }
}
