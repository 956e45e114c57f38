/**
 * Mail-link flows and account deletion: address verification, forgotten passwords (by link when
 * SMTP is set; otherwise the operator's `clipd account reset-password`) and deleting an account.
 */
import type { Logger } from "pino";
import type { Db } from "../store/db.js";
import { Conflict } from "../domain/errors.js";
import type { AccountService } from "../account/accounts.js";
import { checkPassword } from "./passwords.js";
import { resetMail } from "./mailer.js";
import type { MailGate } from "./mail-gate.js";
import { issueToken, spendToken } from "./mail-tokens.js";
import { accountByEmail, normalEmail, type WebUsers } from "./users.js";

export interface RecoveryDeps {
  db: Db;
  accounts: AccountService;
  users: WebUsers;
  mail: MailGate;
  log: Logger;
  removalDays: number;
}

export class AccountRecovery {
  private pending = new Set<Promise<unknown>>();

  constructor(private readonly d: RecoveryDeps) {}

  /** Marks the address verified; 400 invalid_token for an unknown, used or old link. */
  async verifyEmail(token: string): Promise<string> {
    return this.d.db.transaction(async (tx) => {
      const accountId = await spendToken(tx, token, "verify");
      await tx.query(`update accounts set email_verified_at = coalesce(email_verified_at, now()) where id = $1`, [
        accountId,
      ]);
      return accountId;
    });
  }

  /**
   * Mails a reset link when the address belongs to a live account and neither its mail limit nor
   * the requester's is used up. The caller always answers 202: the mail goes out after the answer,
   * so neither the answer nor its timing tells whether the address is known or limited. The link
   * comes from server.public_url only; without it, 409 mail_not_configured for every address.
   */
  async forgot(email: string, clientAddr: string): Promise<void> {
    if (!this.d.mail.mailer.enabled) {
      throw new Conflict(
        "email_disabled",
        "this site sends no e-mail; ask its operator to run `clipd account reset-password --email <your address>`",
      );
    }
    this.d.mail.ready();
    const to = normalEmail(email).slice(0, 254);
    const send = (async () => {
      const found = await accountByEmail(this.d.db, to);
      if (!found) return;
      const allowed = await this.d.mail.take(found.id, clientAddr);
      if (!allowed.ok) {
        this.d.log.info({ per: allowed.rule.per, limit: allowed.rule.limit }, "reset mail over its limit: not sent");
        return;
      }
      const token = await issueToken(this.d.db, found.id, "reset");
      // To the address the account holds, not the spelling typed into the form.
      await this.d.mail.mailer.send(resetMail(found.email, this.d.mail.link("/reset-password", token)));
    })().catch((err) => this.d.log.warn({ err: { message: (err as Error).message } }, "reset mail failed"));
    this.pending.add(send);
    void send.finally(() => this.pending.delete(send));
  }

  /** Sets the new password from a reset link, ends every session and marks the address verified. */
  async reset(token: string, password: string): Promise<void> {
    checkPassword(password);
    await this.d.db.transaction(async (tx) => {
      const accountId = await spendToken(tx, token, "reset");
      await this.d.users.setPassword(accountId, password, undefined, tx);
      await tx.query(`update accounts set email_verified_at = coalesce(email_verified_at, now()) where id = $1`, [
        accountId,
      ]);
    });
  }

  /**
   * Deletes the account at once: every key revoked (and forgotten by every process), every webhook
   * switched off, every session and mail token gone, the address free for a new sign-up. Its data
   * is due for removal `removalDays` later (removal_due_at).
   */
  async deleteAccount(accountId: string, password: string): Promise<{ removal_due_at: string }> {
    await this.d.users.checkCurrent(accountId, password, "password");
    const { due, keys } = await this.d.db.transaction(async (tx) => {
      const { rows } = await tx.query(
        `update accounts set deleted_at = now(), removal_due_at = now() + make_interval(days ` +
          `=> $2::int) where id = $1 and deleted_at is null returning removal_due_at`,
        [accountId, this.d.removalDays],
      );
      const k = await tx.query(
        `update api_keys set revoked_at = now() where account_id = $1 and revoked_at is null returning id`,
        [accountId],
      );
      await tx.query(
        `update webhooks set enabled = false, disabled_reason = 'the account was ` +
          `deleted', updated_at = now() where account_id = $1`,
        [accountId],
      );
      await tx.query(`delete from web_sessions where account_id = $1`, [accountId]);
      await tx.query(`delete from web_tokens where account_id = $1`, [accountId]);
      return { due: rows[0]?.removal_due_at, keys: k.rows.map((r) => String(r.id)) };
    });
    // revokeKey is idempotent; it clears this process's cache and tells the others.
    for (const id of keys) await this.d.accounts.revokeKey(id);
    this.d.accounts.evictAccount(accountId);
    return { removal_due_at: due instanceof Date ? due.toISOString() : String(due) };
  }

  /** Waits for reset mails still being sent (shutdown, tests). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
