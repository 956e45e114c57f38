// The explicit list of built-in stages. Adding a stage to clipd means adding it here; ops can add
// or replace stages without code changes through `plugins:` in the config.
import captionBurn from "../plugins/caption-burn/index.js";
import cut from "../plugins/cut/index.js";
import fetchSource from "../plugins/fetch-source/index.js";
import findClips from "../plugins/find-clips/index.js";
import notify from "../plugins/notify/index.js";
import probe from "../plugins/probe/index.js";
import transcribe from "../plugins/transcribe/index.js";
import type { StageDefinition } from "./stage.js";

export const BUILTIN_STAGES: StageDefinition[] = [fetchSource, probe, transcribe, findClips, cut, captionBurn, notify];
