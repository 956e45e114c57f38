/**
 * What clipd needs from the operating system, in one table: which program or file, which Debian
 * package brings it, and how to tell it is there. Read by `npm start` and `npm test` (through
 * scripts/os-packages.mjs, which installs what is missing with apt when it can), by `clipd doctor`,
 * by `GET /healthz`, and by the stages: a program that is not installed fails a step with
 * `tool_missing` and the apt command that fixes it.
 *
 * Every check looks at the file system only (a PATH lookup, a model folder, a font file): nothing
 * is spawned, so /healthz can afford it.
 */
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../config/loader.js";
import { StageError } from "../engine/stage.js";

/** service: needed to run clipd; tests: needed by `npm test` only. */
export type PackageSet = "service" | "tests";

export interface Requirement {
  /** What is looked for, as /healthz and `clipd doctor` name it. */
  name: string;
  /** The Debian package that provides it. */
  pkg: string;
  /** What clipd uses it for. */
  use: string;
  set: PackageSet;
  /** The program run, for requirements that are programs (env overrides apply). */
  command?: () => string;
  found(opts?: { fontsDir?: string }): boolean;
}

export const ffmpegCommand = (): string => process.env.CLIPD_FFMPEG || "ffmpeg";
export const ffprobeCommand = (): string => process.env.CLIPD_FFPROBE || "ffprobe";
/** Debian's Chromium, which the browser tests and the Lighthouse bench drive (CLIPD_CHROMIUM: another build). */
export const chromiumCommand = (): string => process.env.CLIPD_CHROMIUM || "/usr/bin/chromium";
export const POCKETSPHINX_COMMAND = "pocketsphinx_continuous";
export const POCKETSPHINX_MODEL = "/usr/share/pocketsphinx/model/en-us";

/** Whether `command` (a name looked up on PATH, or a path) is an executable file. */
export function onPath(command: string): boolean {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes("/")) return executable(command);
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir && executable(path.join(dir, command)));
}

// Where fonts-dejavu-core (and its equivalents elsewhere) put DejaVu Sans, the captions' font.
const FONT_DIRS = [
  "/usr/share/fonts/truetype/dejavu",
  "/usr/share/fonts/dejavu",
  "/usr/share/fonts/TTF",
  "/usr/local/share/fonts",
  path.join(os.homedir(), ".local/share/fonts"),
  path.join(os.homedir(), ".fonts"),
  "/Library/Fonts",
  path.join(os.homedir(), "Library/Fonts"),
];

/** render.fonts_dir (optional, so not in the Config type): where libass may find the fonts instead. */
export const fontsDirOf = (cfg: Config): string | undefined =>
  (cfg.render as { fonts_dir?: string }).fonts_dir || undefined;

function hasCaptionFont(fontsDir?: string): boolean {
  if (FONT_DIRS.some((d) => existsSync(path.join(d, "DejaVuSans.ttf")))) return true;
  // render.fonts_dir: any font there will do (libass is pointed at it).
  try {
    return !!fontsDir && readdirSync(fontsDir).some((f) => /\.(ttf|otf|ttc)$/i.test(f));
  } catch {
    return false;
  }
}

/** The newest PostgreSQL server's bin folder (Debian layout), for the tests' throwaway cluster. */
export function postgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const v = readdirSync(base).sort((a, b) => Number(b) - Number(a))[0];
  return v ? path.join(base, v, "bin") : undefined;
}

const program = (
  name: string,
  pkg: string,
  use: string,
  set: PackageSet,
  command: () => string = () => name,
): Requirement => ({
  name,
  pkg,
  use,
  set,
  command,
  found: () => onPath(command()),
});

export const REQUIREMENTS: readonly Requirement[] = [
  program("ffmpeg", "ffmpeg", "cutting, decoding and rendering", "service", ffmpegCommand),
  program("ffprobe", "ffmpeg", "reading media files", "service", ffprobeCommand),
  program("pocketsphinx", "pocketsphinx", "offline English speech recognition", "service", () => POCKETSPHINX_COMMAND),
  {
    name: "pocketsphinx en-us model",
    pkg: "pocketsphinx-en-us",
    use: "offline English speech recognition",
    set: "service",
    found: () => existsSync(POCKETSPHINX_MODEL),
  },
  {
    name: "fonts",
    pkg: "fonts-dejavu-core",
    use: "burned-in captions (DejaVu Sans)",
    set: "service",
    found: (o) => hasCaptionFont(o?.fontsDir),
  },
  {
    name: "postgresql",
    pkg: "postgresql",
    use: "the tests' PostgreSQL server",
    set: "tests",
    found: () => existsSync(path.join(postgresBin() ?? "/nonexistent", "initdb")),
  },
  program("espeak-ng", "espeak-ng", "the tests' synthetic speech", "tests"),
  program("sox", "sox", "the tests' audio fixtures", "tests"),
  program("openssl", "openssl", "the tests' certificates", "tests"),
  // A real S3-compatible server for the object-storage tests: Ceph's radosgw on a one-node cluster
  // (scripts/s3-server.mjs).
  program("radosgw", "radosgw", "the tests' S3-compatible object store", "tests"),
  program("ceph-mon", "ceph-mon", "the tests' object store (its monitor)", "tests"),
  program("ceph-osd", "ceph-osd", "the tests' object store (its object daemon)", "tests"),
  program("ceph", "ceph-common", "the tests' object store (its admin commands)", "tests"),
  program(
    "chromium",
    "chromium",
    "the browser tests (the website, driven by playwright-core)",
    "tests",
    chromiumCommand,
  ),
];

/** The requirements of a set; "tests" includes the service's. */
export function requirementsOf(set: PackageSet): Requirement[] {
  return REQUIREMENTS.filter((r) => r.set === "service" || set === "tests");
}

export function missingRequirements(set: PackageSet, opts: { fontsDir?: string } = {}): Requirement[] {
  return requirementsOf(set).filter((r) => !r.found(opts));
}

/** The one command that installs these packages on Debian or Ubuntu (as root). */
export function aptCommand(pkgs: readonly string[]): string {
  return `apt-get update && apt-get install -y ${[...new Set(pkgs)].join(" ")}`;
}

/** The error a step fails with when a program it runs is not installed. Not retried. */
export function toolMissing(command: string, cause?: unknown): StageError {
  const req = REQUIREMENTS.find((r) => r.command && path.basename(r.command()) === path.basename(command));
  return missingError(`${command} is not installed (not found on PATH)`, command, req, cause);
}

/** The same for a requirement that is not a program (a model, fonts), by its name in REQUIREMENTS. */
export function requirementMissing(name: string): StageError {
  return missingError(
    `${name} is not installed`,
    name,
    REQUIREMENTS.find((r) => r.name === name),
  );
}

function missingError(what: string, tool: string, req: Requirement | undefined, cause?: unknown): StageError {
  const fix = req ? aptCommand([req.pkg]) : undefined;
  const how = fix
    ? `fix: ${fix} (Debian/Ubuntu, as root; \`clipd doctor\` lists everything missing)`
    : "install it and put it on PATH";
  return new StageError("tool_missing", `${what}; ${how}`, { cause, details: { tool, ...(fix ? { fix } : {}) } });
}

/**
 * What a failed spawn means: ENOENT for a program that is not on PATH is `tool_missing`. Any other
 * error (ENOENT from a missing working folder, EACCES…) is returned as it is.
 */
export function spawnFailure(command: string, err: unknown): unknown {
  const e = err as NodeJS.ErrnoException | undefined;
  if (e?.code === "ENOENT" && !onPath(command)) return toolMissing(command, err);
  return err;
}

/** Any error from spawning a program (it carries `syscall: "spawn <cmd>"` and `path`), mapped as above. */
export function fromSpawnError(err: unknown): unknown {
  const e = err as NodeJS.ErrnoException | undefined;
  return typeof e?.syscall === "string" && e.syscall.startsWith("spawn") && typeof e.path === "string"
    ? spawnFailure(e.path, err)
    : err;
}

export interface ToolHealth {
  ok: boolean;
  /** Names from REQUIREMENTS, e.g. ["ffprobe", "pocketsphinx"]. */
  missing: string[];
  /** The apt command that installs them all. */
  fix?: string;
}

let cached: { at: number; key: string; value: ToolHealth } | undefined;

/**
 * The service's requirements, for /healthz. Kept for `maxAgeMs` (30 s), so a burst of health
 * checks costs one look, and installing a package shows up without a restart.
 */
export function toolHealth(opts: { fontsDir?: string; maxAgeMs?: number } = {}): ToolHealth {
  const key = `${process.env.PATH}|${opts.fontsDir ?? ""}`;
  if (cached && cached.key === key && Date.now() - cached.at < (opts.maxAgeMs ?? 30_000)) return cached.value;
  const missing = missingRequirements("service", opts);
  const value: ToolHealth = missing.length
    ? { ok: false, missing: missing.map((r) => r.name), fix: aptCommand(missing.map((r) => r.pkg)) }
    : { ok: true, missing: [] };
  cached = { at: Date.now(), key, value };
  return value;
}
