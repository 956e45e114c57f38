/**
 * What every account mail (address verification, password reset) passes before it is sent
 * (issue 27, findings 1 and 5):
 *
 * - its link comes only from `server.public_url`. A request's Host header is the sender's to
 *   choose, so a link built from it let anyone have the owner's reset token mailed to a site of
 *   theirs. With mail on and no public_url, nothing is sent: 409 mail_not_configured;
 * - it is counted per account (the mailbox) and per client address (the requester) over an hour
 *   (web.mails_per_account_per_hour, web.mails_per_address_per_hour).
 */
import { Conflict, LimitReached } from "../domain/errors.js";
import type { Db } from "../store/db.js";
import { takeHit, type HitAnswer } from "./hit-limits.js";
import type { Mailer } from "./mailer.js";

export interface MailGateConfig {
  /** server.public_url as configured ("" when unset). */
  publicUrl: string;
  perAccountPerHour: number;
  perAddressPerHour: number;
}

/** Why mail links cannot be made, or undefined when they can (also read by `clipd doctor`). */
export function mailLinkProblem(smtpHost: string, publicUrl: string): string | undefined {
  if (!smtpHost) return undefined;
  if (!publicUrl)
    return (
      "smtp.host is set but server.public_url is not: reset and verification mails are not sent, because " +
      "their links would come from the request's Host header, which the sender chooses"
    );
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return `server.public_url "${publicUrl.slice(0, 200)}" is not a URL: reset and verification mails are not sent`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return `server.public_url must be an http(s) URL (it is ${url.protocol}): no reset or verification mails are sent`;
  return undefined;
}

export class MailGate {
  constructor(
    private readonly db: Db,
    readonly mailer: Mailer,
    private readonly smtpHost: string,
    private readonly cfg: MailGateConfig,
  ) {}

  /** Why account mails are not sent on this site, or undefined. */
  get problem(): string | undefined {
    return mailLinkProblem(this.smtpHost, this.cfg.publicUrl);
  }

  /** The link to one of the site's pages; 409 mail_not_configured without a usable public_url. */
  link(page: "/verify-email" | "/reset-password", token: string): string {
    const problem = this.problem;
    if (problem) throw new Conflict("mail_not_configured", problem, { context: { field: "server.public_url" } });
    return `${new URL(this.cfg.publicUrl).origin}${page}?token=${token}`;
  }

  /** Throws mail_not_configured now, before an answer that says a mail is on its way. */
  ready(): void {
    this.link("/reset-password", "");
  }

  /** Counts one mail to `accountId` asked for from `addr`, unless either limit is used up. */
  take(accountId: string, addr: string): Promise<HitAnswer> {
    return takeHit(this.db, [
      { subject: `mail:acct:${accountId}`, limit: this.cfg.perAccountPerHour, windowSeconds: 3600, per: "account" },
      { subject: `mail:addr:${addr}`, limit: this.cfg.perAddressPerHour, windowSeconds: 3600, per: "address" },
    ]);
  }

  /** As take, but a refusal is thrown: 429 mail_limit with retry_after (for calls that may say so). */
  async takeOrThrow(accountId: string, addr: string): Promise<void> {
    const a = await this.take(accountId, addr);
    if (a.ok) return;
    throw new LimitReached(
      "quota",
      "mail_limit",
      `no more than ${a.rule.limit} mails an hour per ${a.rule.per}; retry in ${a.retryAfter} s`,
      { context: { retry_after: a.retryAfter, limit: a.rule.limit, per: a.rule.per } },
    );
  }
}
