/**
 * The website's account side, assembled from the config: sessions, sign-in limits, mail, users
 * and recovery. The composition root builds one per process; the facade reaches it as `web`.
 */
import type { Logger } from "pino";
import type { Config } from "../../config/loader.js";
import type { Db } from "../store/db.js";
import type { AccountService } from "../account/accounts.js";
import { Mailer } from "./mailer.js";
import { MailGate } from "./mail-gate.js";
import { AccountRecovery } from "./recovery.js";
import { SessionStore } from "./sessions.js";
import { SigninLimits } from "./signin-limits.js";
import { WebUsers } from "./users.js";

export class WebService {
  readonly sessions: SessionStore;
  readonly mailer: Mailer;
  readonly mail: MailGate;
  readonly users: WebUsers;
  readonly recovery: AccountRecovery;

  constructor(deps: { db: Db; accounts: AccountService; config: Config; log: Logger }) {
    const w = deps.config.web;
    this.sessions = new SessionStore(deps.db, {
      idleHours: w.session_idle_hours,
      absoluteDays: w.session_absolute_days,
    });
    const limits = new SigninLimits(deps.db, {
      perAddress: w.signin_attempts_per_address,
      perAccount: w.signin_attempts_per_account,
      freeAttempts: w.signin_free_attempts,
      backoffSeconds: w.signin_backoff_seconds,
      windowMinutes: w.signin_window_minutes,
    });
    this.mailer = new Mailer(deps.config.smtp, deps.log);
    this.mail = new MailGate(deps.db, this.mailer, deps.config.smtp.host, {
      publicUrl: deps.config.server.public_url,
      perAccountPerHour: w.mails_per_account_per_hour,
      perAddressPerHour: w.mails_per_address_per_hour,
    });
    // Said once at start-up too (`clipd doctor` says it as well): the site's mail is off until fixed.
    if (this.mail.problem) deps.log.warn({ fix: "set server.public_url" }, this.mail.problem);
    this.users = new WebUsers({
      db: deps.db,
      accounts: deps.accounts,
      sessions: this.sessions,
      limits,
      mail: this.mail,
      signupsPerAddressPerDay: w.signups_per_address_per_day,
      log: deps.log,
    });
    this.recovery = new AccountRecovery({
      db: deps.db,
      accounts: deps.accounts,
      users: this.users,
      mail: this.mail,
      log: deps.log,
      removalDays: w.account_removal_days,
    });
  }

  async stop(): Promise<void> {
    await this.recovery.settle();
    this.mailer.close();
  }
}
