// Logs never carry secrets: the website's cookies, CSRF tokens and passwords, and the API's keys,
// are censored by path however a log line nests them.
import { mkdtempSync, openSync, readFileSync, closeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../daemon/ops/log.js";

describe("log redaction", () => {
  it("censors secrets by path", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "clipd-log-")), "log");
    const fd = openSync(file, "w");
    const log = createLogger({ log: { level: "info", pretty: false } }, { destination: fd });
    log.info(
      {
        headers: { cookie: "clipd_session=leak-cookie", authorization: "Bearer leak-key" },
        body: { password: "leak-pw", new_password: "leak-new", current_password: "leak-cur", email: "a@b.example" },
        session: { csrf_token: "leak-csrf" },
        account: { password_hash: "leak-hash" },
        payments: { stripe_secret_key: "leak-sk", stripe_webhook_secret: "leak-whsec" },
      },
      "request",
    );
    closeSync(fd);
    const line = readFileSync(file, "utf8");
    expect(line).toContain("a@b.example");
    expect(line).not.toMatch(/leak-/);
  });
});
