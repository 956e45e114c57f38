/**
 * Whisper by default where it can be had (issue 29, item 9). A worker that finds no real model in
 * `<data_dir>/models` fetches `transcribe.auto_model` (base.en) in the background with pullModel
 * (sha256 checked, resumed from its `.part` after a break). Until it is there `engine: auto` picks
 * pocketsphinx, and once it is, new steps pick whisper (`_pick.ts` looks at the folder each time).
 * A host that cannot be reached is said once per process, with the command to run and what the
 * missing model costs in accuracy, and nothing else changes.
 */
import type { Logger } from "pino";
import { setModelStatus, type ModelStatus } from "../../../daemon/ops/model-status.js";
import { ModelHostUnreachable, modelInfo, pickInstalledModel, pullModel } from "./models.js";

export interface AutoModelConfig {
  data_dir: string;
  transcribe: { engine?: string; auto_model: string; model_host: string };
  openai?: { api_key?: string };
}

/** What the log says when the host cannot be reached; cited word error rates, rounded on purpose. */
export const accuracyNote = (model: string) =>
  `without a whisper model, clipd transcribes with pocketsphinx (en-us): roughly 30–50% of words wrong ` +
  `on conversational speech, against roughly 5–10% for whisper ${model} on clean English`;

let saidUnreachable = false;

/**
 * Fetches the model when it should (resolves when done or given up; never rejects). It does
 * nothing when auto_model is off, when the site named an engine, when an OpenAI key is set (auto
 * would switch from it), or when a real model is installed.
 */
export async function fetchAutoModel(
  cfg: AutoModelConfig,
  log: Logger,
  opts: { ca?: string | Buffer; signal?: AbortSignal } = {},
): Promise<ModelStatus> {
  const model = cfg.transcribe.auto_model;
  const done = (s: ModelStatus) => (setModelStatus(s), s);
  const engine = cfg.transcribe.engine ?? "auto";
  if (model === "off" || engine !== "auto" || cfg.openai?.api_key) return done({ model, state: "off" });
  const info = modelInfo(model);
  if (!info) {
    log.warn({ model }, "transcribe.auto_model names no known whisper model; nothing fetched");
    return done({ model, state: "off", error: "unknown model" });
  }
  if (await pickInstalledModel(cfg.data_dir)) return done({ model, state: "installed" });
  log.info({ model, bytes: info.bytes }, `fetching whisper model ${model} in the background; pocketsphinx until then`);
  const status: ModelStatus = { model, state: "downloading", bytes: 0, total: info.bytes };
  setModelStatus(status);
  let logged = 0;
  try {
    const file = await pullModel(model, cfg.data_dir, {
      host: cfg.transcribe.model_host,
      ca: opts.ca,
      signal: opts.signal,
      onProgress: (bytes, total) => {
        status.bytes = bytes;
        const pct = Math.floor((100 * bytes) / Math.max(1, total));
        if (pct >= logged + 10) {
          logged = pct - (pct % 10);
          log.info({ model, percent: logged }, `whisper model ${model}: ${logged}%`);
        }
      },
    });
    log.info({ model, file }, `whisper model ${model} installed and checked; new transcriptions use whisper`);
    return done({ model, state: "ready", bytes: info.bytes, total: info.bytes });
  } catch (err) {
    if (err instanceof ModelHostUnreachable) {
      if (!saidUnreachable)
        log.warn(
          { model, host: cfg.transcribe.model_host },
          `could not reach ${cfg.transcribe.model_host} to fetch whisper model ${model}; run ` +
            `\`npx clipd models pull ${model}\` when online (or set transcribe.auto_model: ` +
            `off). ${accuracyNote(model)}`,
        );
      saidUnreachable = true;
      return done({ model, state: "unreachable", error: (err as Error).message });
    }
    log.warn({ model, err: (err as Error).message }, `whisper model ${model} was not installed; pocketsphinx stays`);
    return done({ ...status, state: "failed", error: (err as Error).message });
  }
}
