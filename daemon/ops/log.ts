/** Structured logs (pino). JSON lines by default; pretty output on a TTY. Secrets are redacted by path. */
import pino, { type Logger } from "pino";
import type { Config } from "../../config/loader.js";

export function createLogger(cfg: Pick<Config, "log">, opts: { destination?: number } = {}): Logger {
  const fd = opts.destination ?? 2;
  const pretty = cfg.log.pretty === "auto" ? Boolean(process.stderr.isTTY) && fd === 2 : cfg.log.pretty;
  const base = {
    level: cfg.log.level,
    redact: {
      // The website's too: session cookies, CSRF tokens, password hashes and the payment secrets.
      paths: [
        "*.api_key",
        "*.secret",
        "*.password",
        "*.authorization",
        "*.token",
        "headers.authorization",
        "config.openai.api_key",
        "*.cookie",
        "headers.cookie",
        "*.csrf_token",
        "*.password_hash",
        "*.stripe_secret_key",
        "*.stripe_webhook_secret",
        "*.new_password",
        "*.current_password",
        "*.secret_access_key",
      ],
      censor: "****",
    },
  };
  if (pretty) {
    return pino({
      ...base,
      transport: {
        target: "pino-pretty",
        options: { destination: fd, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" },
      },
    });
  }
  return pino(base, pino.destination({ fd, sync: true }));
}
