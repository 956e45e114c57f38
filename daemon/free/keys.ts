/**
 * Free transcription keys (`svc_free_…`): issued by email address (a few a UTC day), shown once
 * and stored only as their sha256, compared in constant time, revoked at once. Account keys are
 * refused here, as free keys are refused on the account API.
 */
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { fingerprint, keyKind } from "../account/accounts.js";
import { LimitReached, Refused, Unauthorized } from "../domain/errors.js";
import type { FreeConfig } from "./config.js";
import { isoColumn } from "../store/_columns.js";
import type { Db } from "../store/db.js";

/** The start of the UTC day of `now`: the free tool's days are UTC days. */
export function dayStart(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** The next UTC midnight: when a daily limit resets. */
export function nextDay(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** A new `svc_free_` key for `email` (at most keys_per_email_per_day a UTC day). Shown once. */
export async function issueFreeKey(db: Db, cfg: FreeConfig, email: string): Promise<string> {
  const addr = email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(addr))
    throw new Refused("invalid_request", `"${email}" is not an email address`, { context: { field: "email" } });
  const limit = cfg.keys_per_email_per_day;
  const key = `svc_free_${randomBytes(20).toString("hex")}`;
  await db.transaction(async (tx) => {
    const { rows } = await tx.query(
      `insert into free_key_issues (email, day, issued) values ($1, $2, 1)
       on conflict (email, day) do update set issued = free_key_issues.issued + 1 returning issued`,
      [addr, dayStart().toISOString().slice(0, 10)],
    );
    if (rows[0].issued > limit) {
      throw new LimitReached("quota", "key_limit", `at most ${limit} keys a day are issued per email address`, {
        context: { limit, resets_at: nextDay().toISOString() },
      });
    }
    await tx.query(`insert into free_keys (id, fingerprint, email) values ($1, $2, $3)`, [
      randomUUID(),
      fingerprint(key),
      addr,
    ]);
  });
  return key;
}

/** The id of a valid free key; throws 401 bad_key for anything else (account keys included). */
export async function authenticateFreeKey(db: Db, token: string): Promise<string> {
  const kind = keyKind(token);
  if (kind !== "free") {
    throw new Unauthorized(
      "bad_key",
      kind
        ? "account API keys are not accepted here; send a free key (svc_free_…) or none"
        : "that is not a free transcription key (svc_free_…)",
    );
  }
  const fp = fingerprint(token);
  const { rows } = await db.query(`select id, fingerprint, revoked_at from free_keys where fingerprint = $1`, [fp]);
  const r = rows[0];
  if (!r || !timingSafeEqual(Buffer.from(r.fingerprint, "hex"), Buffer.from(fp, "hex")))
    throw new Unauthorized("bad_key", "this free key is not known");
  if (r.revoked_at) throw new Unauthorized("bad_key", "this free key was revoked");
  return r.id;
}

/** Revokes the key given as the bearer token; it stops working at once. */
export async function revokeFreeKey(db: Db, token: string): Promise<{ revoked_at: string }> {
  const id = await authenticateFreeKey(db, token);
  const { rows } = await db.query(`update free_keys set revoked_at = now() where id = $1 returning revoked_at`, [id]);
  return { revoked_at: isoColumn(rows[0].revoked_at)! };
}
