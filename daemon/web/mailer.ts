/**
 * Outgoing mail through nodemailer, only when smtp.host is set (e-mail is optional for a
 * self-hosted site). Mails carry links to the site's own pages; the token in a link is shown
 * to no one but the mailbox, and never logged.
 */
import nodemailer, { type Transporter } from "nodemailer";
import type { Logger } from "pino";

export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
  from: string;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export class Mailer {
  private transport?: Transporter;

  constructor(
    private readonly cfg: SmtpConfig,
    private readonly log: Logger,
  ) {}

  get enabled(): boolean {
    return this.cfg.host !== "";
  }

  /** Sends one mail; false (and a warning without the body) when the server refused it. */
  async send(mail: Mail): Promise<boolean> {
    if (!this.enabled) return false;
    this.transport ??= nodemailer.createTransport({
      host: this.cfg.host,
      port: this.cfg.port,
      secure: this.cfg.secure,
      ...(this.cfg.user ? { auth: { user: this.cfg.user, pass: this.cfg.password } } : {}),
      connectionTimeout: 10_000,
      socketTimeout: 20_000,
    });
    try {
      await this.transport.sendMail({ from: this.cfg.from, to: mail.to, subject: mail.subject, text: mail.text });
      return true;
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message }, subject: mail.subject }, "mail not sent");
      return false;
    }
  }

  close(): void {
    this.transport?.close();
  }
}

export function verifyMail(to: string, link: string): Mail {
  return {
    to,
    subject: "Confirm your e-mail address for clipd",
    text:
      `Confirm this address for your clipd account by opening:\n\n${link}\n\nThe ` +
      `link works once, for one hour. If you did not sign up, ignore this mail.\n`,
  };
}

export function resetMail(to: string, link: string): Mail {
  return {
    to,
    subject: "Reset your clipd password",
    text:
      `Choose a new password for your clipd account by opening:\n\n${link}\n\nThe ` +
      `link works once, for one hour. If you did not ask for this, ignore this ` +
      `mail; your password stays as it is.\n`,
  };
}
