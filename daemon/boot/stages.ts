// The explicit list of built-in stages, part of the composition root: the engine knows stages only
// through the registry it is handed. Adding a stage to clipd means adding it here; ops can add or
// replace stages without code changes through `plugins:` in the config.
import captionBurn from "../../plugins/caption-burn/index.js";
import cut from "../../plugins/cut/index.js";
import planCrops from "../../plugins/cut/plan-crops.js";
import fetchSource from "../../plugins/fetch-source/index.js";
import findClips from "../../plugins/find-clips/index.js";
import notify from "../../plugins/notify/index.js";
import poster from "../../plugins/poster/index.js";
import probe from "../../plugins/probe/index.js";
import transcribe from "../../plugins/transcribe/index.js";
import { loadStageRegistry, type StageRegistry } from "../engine/registry.js";
import type { StageDefinition } from "../engine/stage.js";

export const BUILTIN_STAGES: StageDefinition[] = [
  fetchSource,
  probe,
  transcribe,
  findClips,
  planCrops,
  cut,
  captionBurn,
  poster,
  notify,
];

/** The stage registry with the built-in stages, then the config's plugin modules. */
export function loadStages(
  opts: Omit<Parameters<typeof loadStageRegistry>[0], "builtins"> = {},
): Promise<StageRegistry> {
  return loadStageRegistry({ ...opts, builtins: BUILTIN_STAGES });
}
