/**
 * `clipd doctor`: checks what clipd needs from the machine and says, for each thing missing, the
 * exact command that fixes it. The same checks run (quietly) at start, as warnings. What the OS
 * must provide comes from daemon/ops/os-packages.ts (the table /healthz and npm start read too); the
 * doctor adds what only running a program can tell (ffmpeg's libass and libx264, and which H.264
 * encoder `render.encoder` resolves to on this machine).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, statfs } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Config } from "../../config/loader.js";
import { chooseEncoder } from "../render/encoder.js";
import { aptCommand, ffmpegCommand, fontsDirOf, requirementsOf } from "../ops/os-packages.js";
import { openDb } from "../store/db.js";
import { mailLinkProblem } from "../web/mail-gate.js";

const run = promisify(execFile);

export interface Check {
  name: string;
  ok: boolean;
  /** Optional parts report "warn" instead of failing. */
  level: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

const APT = "apt-get update && apt-get install -y";

async function tool(cmd: string, args: string[]): Promise<string | undefined> {
  try {
    const { stdout, stderr } = await run(cmd, args, { timeout: 15_000, maxBuffer: 8 << 20 });
    return stdout + stderr;
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException & { stdout?: unknown; stderr?: unknown };
    if (err?.code === "ENOENT") return undefined;
    return String(err?.stdout ?? "") + String(err?.stderr ?? "");
  }
}

export async function runDoctor(cfg: Config, opts: { database?: boolean } = {}): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (name: string, ok: boolean, detail: string, fix?: string, optional = false) =>
    checks.push({ name, ok, level: ok ? "ok" : optional ? "warn" : "fail", detail, fix: ok ? undefined : fix });

  const major = Number(process.versions.node.split(".")[0]);
  add(
    "node",
    major >= 22,
    `Node ${process.versions.node}`,
    "npm install (brings Node 24 as a devDependency; run clipd through npm scripts or npx)",
  );

  for (const r of requirementsOf("service")) {
    const ok = r.found({ fontsDir: fontsDirOf(cfg) });
    add(r.name, ok, ok ? `for ${r.use}` : "not found", aptCommand([r.pkg]));
  }
  const ffmpeg = checks.find((c) => c.name === "ffmpeg")!.ok
    ? await tool(ffmpegCommand(), ["-hide_banner", "-version"])
    : undefined;
  if (ffmpeg) {
    const filters = (await tool(ffmpegCommand(), ["-hide_banner", "-filters"])) ?? "";
    add(
      "ffmpeg libass",
      /\bass\b/.test(filters) && /\bsubtitles\b/.test(filters),
      `caption burn-in needs the ass filter (${ffmpeg.split("\n")[0]})`,
      `${APT} ffmpeg (Debian's build includes libass)`,
    );
    const encoders = (await tool(ffmpegCommand(), ["-hide_banner", "-encoders"])) ?? "";
    add(
      "ffmpeg libx264",
      /libx264/.test(encoders),
      "vertical clips are encoded with libx264",
      `${APT} ffmpeg (Debian's build includes libx264)`,
    );
    try {
      const use = await chooseEncoder(cfg.render.encoder);
      add("render encoder", true, `${use.encoder}: ${use.reason}`);
    } catch (err) {
      add(
        "render encoder",
        false,
        (err as Error).message,
        "set render.encoder to auto (hardware when it works, else libx264) or libx264",
      );
    }
  }

  const modelsDir = path.join(cfg.data_dir, "models");
  const models = existsSync(modelsDir) ? (await readdir(modelsDir)).filter((f) => f.endsWith(".bin")) : [];
  // What can be missing is the optional native binding the whisper engine loads lazily
  // (plugins/transcribe/engines/whisper.ts), not the engine's own module: that always loads. The
  // check once imported the engine by a path one folder too shallow from here, and so reported the
  // engine missing on every start (issue 36).
  let binding = false;
  try {
    const spec = "smart-whisper";
    await import(spec);
    binding = true;
  } catch {
    binding = false;
  }
  add(
    "speech: whisper models",
    models.length > 0,
    models.length ? models.join(", ") : `none in ${modelsDir}`,
    "clipd models pull base.en",
    true,
  );
  add(
    "speech: whisper engine",
    binding,
    binding ? "smart-whisper binding loads" : "the smart-whisper binding is not installed or does not load",
    "npm install",
    true,
  );
  add(
    "speech: openai",
    !!cfg.openai.api_key,
    cfg.openai.api_key ? `endpoint ${cfg.openai.base_url || "api.openai.com"}` : "not configured",
    "set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)",
    true,
  );

  // Mail links come only from server.public_url (issue 27): without it the site sends no account mail.
  const mailProblem = mailLinkProblem(cfg.smtp.host, cfg.server.public_url);
  add(
    "mail links",
    !mailProblem,
    mailProblem ?? (cfg.smtp.host ? `reset and verification links point at ${cfg.server.public_url}` : "e-mail is off"),
    "set server.public_url (CLIPD_PUBLIC_URL) to the site's public address, e.g. https://clips.example.com",
    true,
  );

  try {
    await mkdir(cfg.data_dir, { recursive: true });
    const fs = await statfs(cfg.data_dir);
    const free = (fs.bavail * fs.bsize) / 2 ** 30;
    add(
      "disk space",
      free >= 5,
      `${free.toFixed(1)} GiB free in the data folder`,
      `free space under ${cfg.data_dir} (clipd wants 5 GiB or more for episodes up to 4.5 GB)`,
    );
  } catch (err) {
    add("disk space", false, (err as Error).message, `make ${cfg.data_dir} writable`);
  }

  if (opts.database !== false) {
    try {
      const db = await openDb({ databaseUrl: cfg.database_url || undefined, dataDir: cfg.data_dir });
      await db.query("select 1");
      await db.close();
      add(
        "database",
        true,
        cfg.database_url ? "PostgreSQL reachable" : `embedded PGlite in ${path.join(cfg.data_dir, "db")}`,
      );
    } catch (err) {
      const msg = (err as Error).message;
      const busy = /in use by process/.test(msg);
      add(
        "database",
        busy,
        busy ? "embedded database held by a running daemon (fine)" : msg,
        cfg.database_url
          ? "check DATABASE_URL and that the server accepts connections"
          : `remove a stale ${path.join(cfg.data_dir, "db.lock")} if no clipd is running`,
      );
    }
  }
  return checks;
}

export function formatChecks(checks: Check[]): string {
  const mark = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;
  return checks
    .map((c) => `${mark[c.level]}  ${c.name.padEnd(24)} ${c.detail}${c.fix ? `\n        fix: ${c.fix}` : ""}`)
    .join("\n");
}
