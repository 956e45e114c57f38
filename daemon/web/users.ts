/**
 * The website's accounts: sign-up and sign-in by e-mail and password, and password changes.
 * Accounts are the API's own (daemon/account/accounts.ts); this adds the password, the verified
 * address and the sessions. An account the admin CLI made has no password and cannot be signed
 * into until `clipd account reset-password` (or a reset mail) gives it one.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Db, Queryable } from "../store/db.js";
import { Conflict, DomainError, LimitReached, NotFound, Refused, Unauthorized } from "../domain/errors.js";
import type { Account, AccountService } from "../account/accounts.js";
import { checkPassword, hashPassword, verifyOrDummy } from "./passwords.js";
import { SessionStore, type WebSession } from "./sessions.js";
import { SigninLimits } from "./signin-limits.js";
import { verifyMail } from "./mailer.js";
import { issueToken } from "./mail-tokens.js";
import type { MailGate } from "./mail-gate.js";
import { takeHit } from "./hit-limits.js";

export interface WebUsersDeps {
  db: Db;
  accounts: AccountService;
  sessions: SessionStore;
  limits: SigninLimits;
  mail: MailGate;
  /** web.signups_per_address_per_day */
  signupsPerAddressPerDay: number;
  log: Logger;
}

/** Whether the sign-up's verification mail went out, and if not, why (the refusal's code and message). */
export type VerificationSent = { sent: true } | { sent: false; error: { code: string; message: string } };

/** A sign-in: the account, its new session and the cookie token (for the Set-Cookie only). */
export interface SignedIn {
  account: Account;
  session: WebSession;
  token: string;
  /** Sign-up only, when the site sends mail. */
  verification?: VerificationSent;
}

const MAIL_REFUSED = {
  code: "mail_not_sent",
  message: "the mail server did not take the verification mail; ask again later",
};

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const MAX_EMAIL = 254;

export function normalEmail(email: string): string {
  return email.trim();
}

function checkEmail(email: string): void {
  if (email.length > MAX_EMAIL || !EMAIL.test(email))
    throw new Refused("invalid_request", `"${email.slice(0, 80)}" is not an e-mail address`, {
      context: { field: "email" },
    });
}

/** The live account signed in with this address (the one with a password), with its hash. */
export async function accountByEmail(
  q: Queryable,
  email: string,
): Promise<{ id: string; email: string; password_hash: string | null } | undefined> {
  const { rows } = await q.query(
    `select id, email, password_hash from accounts where lower(email) = lower($1) ` +
      `and deleted_at is null order by (password_hash is not null) desc, created_at limit 1`,
    [email],
  );
  return rows[0];
}

export class WebUsers {
  constructor(private readonly d: WebUsersDeps) {}

  get sessions(): SessionStore {
    return this.d.sessions;
  }

  /**
   * Makes the account and signs it in; 409 email_taken when a live account has the address, 429
   * signup_limit past web.signups_per_address_per_day from the client address (finding 9).
   */
  async signUp(input: { email: string; password: string; clientAddr: string }): Promise<SignedIn> {
    const email = normalEmail(input.email);
    checkEmail(email);
    checkPassword(input.password);
    const hit = await takeHit(this.d.db, [
      {
        subject: `signup:addr:${input.clientAddr}`,
        limit: this.d.signupsPerAddressPerDay,
        windowSeconds: 86400,
        per: "address",
      },
    ]);
    if (!hit.ok)
      throw new LimitReached(
        "quota",
        "signup_limit",
        `no more than ${hit.rule.limit} sign-ups a day from one address; retry in ${hit.retryAfter} s`,
        { context: { retry_after: hit.retryAfter, limit: hit.rule.limit, per: "address" } },
      );
    const hash = await hashPassword(input.password);
    const id = randomUUID();
    const taken = () =>
      new Conflict("email_taken", "an account with this e-mail address exists; sign in, or reset its password", {
        context: { field: "email" },
      });
    let made: { token: string; session: WebSession };
    try {
      made = await this.d.db.transaction(async (tx) => {
        if (await accountByEmail(tx, email)) throw taken();
        await tx.query(`insert into accounts (id, email, password_hash, web_signup) values ($1, $2, $3, true)`, [
          id,
          email,
          hash,
        ]);
        return this.d.sessions.create(id, tx);
      });
    } catch (err) {
      // Two sign-ups racing for one address: the unique index settles it.
      if ((err as { code?: string }).code === "23505") throw taken();
      throw err;
    }
    let verification: VerificationSent | undefined;
    if (this.d.mail.mailer.enabled) {
      // The account stands whatever happens to its mail; the answer says why none was sent.
      verification = await this.sendVerification(id, input.clientAddr).then(
        (sent): VerificationSent => (sent ? { sent: true } : { sent: false, error: MAIL_REFUSED }),
        (err: unknown): VerificationSent => {
          if (!(err instanceof DomainError)) throw err;
          return { sent: false, error: { code: err.code, message: err.message } };
        },
      );
    }
    return { account: (await this.d.accounts.getAccount(id))!, ...made, verification };
  }

  /**
   * Mails a verification link to the account's address: 409 email_disabled or mail_not_configured,
   * 409 already_verified, 429 mail_limit with retry_after. False when the mail server refused it.
   */
  async sendVerification(accountId: string, clientAddr: string): Promise<boolean> {
    if (!this.d.mail.mailer.enabled)
      throw new Conflict("email_disabled", "this site sends no e-mail, so its addresses cannot be verified");
    const { rows } = await this.d.db.query(
      `select email, email_verified_at from accounts where id = $1 and deleted_at is null`,
      [accountId],
    );
    if (!rows[0]) throw new NotFound("not_found", "this account does not exist");
    if (rows[0].email_verified_at) throw new Conflict("already_verified", "this account's address is verified");
    this.d.mail.ready();
    await this.d.mail.takeOrThrow(accountId, clientAddr);
    const token = await issueToken(this.d.db, accountId, "verify");
    return this.d.mail.mailer.send(verifyMail(String(rows[0].email), this.d.mail.link("/verify-email", token)));
  }

  /**
   * Signs in, ending `previous` (the session the browser still presented, if any): a new token at
   * every sign-in. Unknown e-mail and wrong password give the same 401 in about the same time.
   */
  async signIn(input: { email: string; password: string; clientAddr: string; previous?: string }): Promise<SignedIn> {
    const email = normalEmail(input.email);
    await this.d.limits.check(input.clientAddr, email);
    const found = email.length <= MAX_EMAIL ? await accountByEmail(this.d.db, email) : undefined;
    const ok = await verifyOrDummy(found?.password_hash, input.password.slice(0, 1024));
    if (!found || !ok) {
      await this.d.limits.fail(input.clientAddr, email);
      throw new Unauthorized("invalid_credentials", "the e-mail address or the password is wrong");
    }
    await this.d.limits.succeed(input.clientAddr, email);
    if (input.previous) await this.d.sessions.end(input.previous);
    const made = await this.d.sessions.create(found.id);
    return { account: (await this.d.accounts.getAccount(found.id))!, ...made };
  }

  /** Checks the account's password (for changes and deletion); 401 invalid_credentials when wrong. */
  async checkCurrent(accountId: string, password: string, field: string): Promise<void> {
    const { rows } = await this.d.db.query(`select password_hash from accounts where id = $1 and deleted_at is null`, [
      accountId,
    ]);
    if (!rows[0]) throw new NotFound("not_found", "this account does not exist");
    if (!(await verifyOrDummy(rows[0].password_hash, password.slice(0, 1024)))) {
      throw new Unauthorized("invalid_credentials", `${field} is not this account's password`, { context: { field } });
    }
  }

  /** Changes the password and ends the account's other sessions (this one stays signed in). */
  async changePassword(accountId: string, sessionId: string, current: string, next: string): Promise<void> {
    checkPassword(next, "new_password");
    await this.checkCurrent(accountId, current, "current_password");
    await this.setPassword(accountId, next, sessionId);
  }

  /** Sets a password (change, reset, the operator's CLI) and ends every session but `keep`. */
  async setPassword(accountId: string, password: string, keep?: string, q?: Queryable): Promise<void> {
    checkPassword(password);
    const hash = await hashPassword(password);
    const run = async (tx: Queryable) => {
      await tx.query(`update accounts set password_hash = $2 where id = $1`, [accountId, hash]);
      await this.d.sessions.endAll(accountId, keep, tx);
    };
    if (q) await run(q);
    else await this.d.db.transaction(run);
  }
}

/** What the site shows of an account: address, whether it is verified, plan, credit and review. */
export interface AccountSummary {
  id: string;
  email: string;
  email_verified: boolean;
  plan: boolean;
  credit_cents: number;
  billing_review: boolean;
  created_at: string;
}

export async function accountSummary(q: Queryable, accountId: string): Promise<AccountSummary | undefined> {
  const { rows } = await q.query(
    `select id, email, email_verified_at, plan, credit_cents, billing_review, ` +
      `created_at from accounts where id = $1 and deleted_at is null`,
    [accountId],
  );
  const r = rows[0];
  if (!r) return undefined;
  const at = r.created_at instanceof Date ? r.created_at.toISOString() : String(r.created_at);
  return {
    id: r.id,
    email: r.email,
    email_verified: r.email_verified_at !== null,
    plan: r.plan,
    credit_cents: Number(r.credit_cents),
    billing_review: r.billing_review,
    created_at: at,
  };
}

/**
 * The operator's reset (`clipd account reset-password`): sets the password of the live account with
 * this address (the one already signed into, if several share it) and ends all its sessions.
 */
export async function resetPasswordByEmail(
  db: Db,
  users: WebUsers,
  email: string,
  password: string,
): Promise<{ account_id: string; email: string }> {
  checkPassword(password);
  const found = await accountByEmail(db, normalEmail(email));
  if (!found)
    throw new NotFound("not_found", `no live account has the e-mail address ${normalEmail(email).slice(0, 254)}`, {
      context: { field: "email" },
    });
  await users.setPassword(found.id, password);
  return { account_id: found.id, email: found.email };
}
