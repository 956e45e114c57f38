// A real SMTP receiver on loopback (smtp-server, from the nodemailer project) that keeps every
// mail it is given, for tests that follow the links clipd mails.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  subject: string;
  /** The text body, quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface Mailbox {
  port: number;
  mails: ReceivedMail[];
  /** Resolves with the first mail to `to` whose subject matches, once it has arrived. */
  next(to: string, subject: RegExp): Promise<ReceivedMail>;
  /** The clipd config block that sends here. */
  smtp: { host: string; port: number; secure: boolean; from: string };
  close(): Promise<void>;
}

function decode(raw: string): ReceivedMail {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, " ");
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(headers)?.[1]?.trim() ?? "";
  let body = rest.join("\n\n");
  if (/quoted-printable/i.test(header("Content-Transfer-Encoding"))) {
    body = body
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return { to: [], subject: header("Subject"), text: body };
}

export async function openMailbox(): Promise<Mailbox> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    size: 1024 * 1024,
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (d: Buffer) => (raw += d.toString("utf8")));
      stream.on("end", () => {
        mails.push({ ...decode(raw), to: session.envelope.rcptTo.map((r) => r.address) });
        for (const w of waiters) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    smtp: { host: "127.0.0.1", port, secure: false, from: "clipd tests <clipd@example.com>" },
    // Waits on the mail itself; the test's own time limit is the only ceiling (CI can be slow).
    next(to, subject) {
      return new Promise((resolve) => {
        const check = () => {
          const m = mails.find((x) => x.to.includes(to) && subject.test(x.subject));
          if (!m) return;
          waiters.delete(check);
          resolve(m);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the first link to `page` (/verify-email, /reset-password) in a mail. */
export function linkToken(mail: ReceivedMail, base: string, page: string): string {
  const m = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}${page}\\?token=([A-Za-z0-9_-]+)`).exec(
    mail.text,
  );
  if (!m) throw new Error(`no ${page} link in the mail:\n${mail.text}`);
  return m[1]!;
}
