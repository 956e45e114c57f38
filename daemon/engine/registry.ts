/**
 * The stage registry. Built-in stages come from the list the composition root hands over
 * (daemon/boot/stages.ts), registered in the tsyringe container; extra modules named in the config (file paths or
 * package names) are
 * loaded after them, so a module may replace a built-in stage of the same name.
 */
import "reflect-metadata";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { container as rootContainer, type DependencyContainer } from "tsyringe";
import { Ajv } from "ajv";
import { isStageDefinition, type StageDefinition } from "./stage.js";

export const STAGE_TOKEN = "clipd:stage";

export class PluginError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = "PluginError";
  }
}

export interface StageRegistry {
  stages: Map<string, StageDefinition>;
  /** Where each stage came from: "builtin" or the module specifier. */
  origins: Map<string, string>;
}

export function registerBuiltins(
  builtins: StageDefinition[],
  c: DependencyContainer = rootContainer.createChildContainer(),
): DependencyContainer {
  for (const stage of builtins) c.register(STAGE_TOKEN, { useValue: stage });
  return c;
}

async function importPlugin(spec: string, cwd: string): Promise<unknown> {
  const isPath = spec.startsWith(".") || spec.startsWith("/") || /\.(m?js|ts)$/.test(spec);
  const target = isPath ? pathToFileURL(path.resolve(cwd, spec)).href : spec;
  return import(target);
}

export async function loadStageRegistry(
  opts: { builtins?: StageDefinition[]; plugins?: string[]; cwd?: string; container?: DependencyContainer } = {},
): Promise<StageRegistry> {
  const c = opts.container ?? registerBuiltins(opts.builtins ?? []);
  const stages = new Map<string, StageDefinition>();
  const origins = new Map<string, string>();
  const ajv = new Ajv({ strict: false });
  const add = (def: StageDefinition, origin: string) => {
    try {
      ajv.compile(def.options);
    } catch (err) {
      throw new PluginError(
        `stage "${def.name}" from ${origin} has an invalid options schema: ${(err as Error).message}`,
        { cause: err },
      );
    }
    stages.set(def.name, def);
    origins.set(def.name, origin);
  };
  for (const def of c.resolveAll<StageDefinition>(STAGE_TOKEN)) add(def, "builtin");
  for (const spec of opts.plugins ?? []) {
    // biome-ignore lint/suspicious/noExplicitAny: a plugin module's exports, checked below
    let mod: any;
    try {
      mod = await importPlugin(spec, opts.cwd ?? process.cwd());
    } catch (err) {
      throw new PluginError(`cannot load plugin module "${spec}": ${(err as Error).message}`, { cause: err });
    }
    const found = [mod.default, ...(Array.isArray(mod.stages) ? mod.stages : [])].flat().filter(isStageDefinition);
    if (!found.length)
      throw new PluginError(
        `plugin module "${spec}" exports no stage (export default defineStage({...}) or export const stages = [...])`,
      );
    for (const def of found) add(def, spec);
  }
  return { stages, origins };
}
