/**
 * `clipd account reset-password --email E [--password P]`: the operator's password reset, for
 * sites without e-mail. Without --password the new one is read from stdin (a pipe), or asked for
 * without echo on a terminal, so it need not sit in the shell's history. It prints one JSON line
 * with the account and never the password. When a running daemon holds the embedded database,
 * the command goes through its ops route, as the other account commands do.
 */
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import type { Config } from "../../config/loader.js";
import { UsageError } from "./args.js";
import { createLogger } from "../ops/log.js";
import { DomainError } from "../domain/errors.js";
import { readOpsToken } from "../ops/ops-token.js";
import { openDb } from "../store/db.js";
import { migrate } from "../store/migrate.js";
import { AccountService } from "../account/accounts.js";
import { checkPassword } from "../web/passwords.js";
import { WebService } from "../web/service.js";
import { resetPasswordByEmail } from "../web/users.js";

const MAX_STDIN = 4096;

/** The first line of stdin (a pipe), at most 4 KiB. */
async function readPiped(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.length > MAX_STDIN || text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0]!.slice(0, MAX_STDIN);
}

/** Asks on the terminal twice, echoing nothing typed. */
async function prompt(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write: (chunk, _enc, done) => (muted ? undefined : process.stderr.write(chunk), done()),
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  const ask = (q: string) =>
    new Promise<string>((resolve) => {
      muted = false;
      rl.question(q, (a) => (process.stderr.write("\n"), resolve(a)));
      muted = true;
    });
  try {
    const a = await ask(question);
    if ((await ask("Again: ")) !== a) throw new UsageError("the two passwords differ");
    return a;
  } finally {
    rl.close();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
export async function cmdResetPassword(cfg: Config, values: Record<string, any>): Promise<void> {
  const email = typeof values.email === "string" ? values.email : "";
  if (!email)
    throw new UsageError(
      "usage: clipd account reset-password --email E [--password P] (without " +
        "--password: read from stdin, or asked for)",
    );
  const password: string =
    typeof values.password === "string"
      ? values.password
      : process.stdin.isTTY
        ? await prompt("New password: ")
        : await readPiped();
  try {
    checkPassword(password);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  let db;
  try {
    db = await openDb({ databaseUrl: cfg.database_url || undefined, dataDir: cfg.data_dir });
  } catch (err) {
    if (!/in use by process/.test((err as Error).message)) throw err;
    return viaDaemon(cfg, email, password);
  }
  try {
    await migrate(db);
    const accounts = new AccountService(db);
    const web = new WebService({
      db,
      accounts,
      config: cfg,
      log: createLogger({ log: { ...cfg.log, level: "warn" } }),
    });
    const out = await resetPasswordByEmail(db, web.users, email, password);
    process.stdout.write(JSON.stringify({ ...out, password_set: true, sessions_ended: true }) + "\n");
  } catch (err) {
    if (err instanceof DomainError) throw new UsageError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}

/** A running daemon holds the embedded database: ask it through its ops route (loopback, the ops token). */
async function viaDaemon(cfg: Config, email: string, password: string): Promise<void> {
  const token = await readOpsToken(cfg);
  const res = await fetch(`http://127.0.0.1:${cfg.server.port}/api/v1/admin/reset-password`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ email, password }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: parseArgs values; each command checks its own flags
  const body = (await res.json()) as any;
  if (!res.ok) throw new UsageError(body?.error?.message ?? `daemon answered ${res.status}`);
  process.stdout.write(JSON.stringify(body) + "\n");
}
