// The explicit list of built-in stages. Adding a stage to clipd means adding it here; ops can add
// or replace stages without code changes through `plugins:` in the config.
import notify from "../plugins/notify/index.js";
import type { StageDefinition } from "./stage.js";

export const BUILTIN_STAGES: StageDefinition[] = [notify];
