// The website end to end, in Debian's Chromium against a real `clipd start` on loopback: an account
// signs up, out and in; makes a key on the keys page and uses it against the API, then revokes it;
// adds a webhook that a real receiver hears, signed; tops up by the operator's command and sees the
// balance move; and a call without its CSRF proof is refused. Each page is photographed at phone
// and desktop width into docs/screenshots/. The steps share one browser session, in order.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cookieHeader, screenshot, useBrowser, useWebClipd } from "../helpers/browser.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

const PASSWORD = "a long enough password";

describe("the website in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd();
  const email = "ada@example.com"; // each run has a fresh database; a fixed address keeps the screenshots steady
  let receiver: Receiver;
  let context: BrowserContext;
  let page: Page;
  const url = (p: string) => clipd().url + p;
  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  /** A call to the site's own API with this browser's cookies, as another page of the same browser would make it. */
  const web = async (method: string, p: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(url(`/web/api/v1${p}`), {
      method,
      headers: { cookie: await cookieHeader(context, clipd().url), "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    receiver = await startReceiver();
    context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(60_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
    await receiver?.close();
  });

  it("signs up, signs out and signs in again, back to the page that asked", async () => {
    await page.goto(url("/signup"));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    // A creator lands on their episodes after sign-up (issue 31), not on API keys.
    await heading("Episodes").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await heading("Sign in").waitFor();
    expect(await (await web("GET", "/session")).json()).toMatchObject({ signed_in: false });
    // A signed-out visit to a signed-in page asks to sign in, then comes back to it.
    await page.goto(url("/billing"));
    await heading("Sign in").waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/signin?next=%2Fbilling");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading("Billing").waitFor();
    expect(await (await web("GET", "/session")).json()).toMatchObject({ signed_in: true, account: { email } });
  });

  it("makes a live key with only clips.read that the API accepts, and revokes it", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Keys" }).click();
    await heading("API keys").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("reader");
    await page.getByRole("group", { name: "Mode" }).getByRole("radio", { name: "Live" }).check();
    const scopes = page.getByRole("group", { name: "Scopes" });
    for (const scope of ["clips.write", "transcripts", "webhooks"])
      await scopes.getByRole("checkbox", { name: scope }).uncheck();
    await scopes.getByRole("checkbox", { name: "clips.read" }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByRole("region", { name: "Your new key “reader”" }).locator("code.secret-value");
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^svc_live_/);
    const me = await fetch(url("/api/v1/me"), { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ account: { email }, key: { mode: "live", scopes: ["clips.read"] } });

    await page.getByRole("button", { name: "I have saved it" }).click();
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Revoke reader" }).click();
    await page
      .getByRole("region", { name: "Keys table" })
      .getByRole("row", { name: /reader/ })
      .getByRole("cell", { name: "Revoked" })
      .waitFor();
    const after = await fetch(url("/api/v1/me"), { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
  });

  it("adds a webhook whose test event reaches the receiver signed, and lists the delivery", async () => {
    const target = receiver.path("/hook");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
    await heading("Webhooks").waitFor();
    await page.getByLabel("Address (URL)", { exact: true }).fill(target);
    await page.getByRole("button", { name: "Add address" }).click();
    const secret = (await page
      .getByRole("region", { name: `Signing secret for ${target}` })
      .locator("code.secret-value")
      .textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    receiver.secret("/hook", secret); // before the test event, so the receiver checks its signature
    await page.getByRole("button", { name: "I have saved it" }).click();
    const card = page.getByRole("article", { name: target });
    await card.getByRole("button", { name: "Send test event" }).click();
    await card.getByText(/Test event .* delivered: the address answered 200\./).waitFor();
    const row = card.locator("summary").filter({ hasText: "HTTP 200" });
    await row.getByText("Delivered", { exact: true }).waitFor();
    expect(receiver.receipts).toHaveLength(1);
    expect(receiver.receipts[0], receiver.receipts[0]?.error).toMatchObject({ verified: true, answered: 200 });
    expect(JSON.parse(receiver.receipts[0]!.body)).toMatchObject({ data: { sample: true } });
  });

  it("refuses a state-changing call without its CSRF token or from a foreign origin", async () => {
    const { csrf_token } = (await (await web("GET", "/session")).json()) as { csrf_token: string };
    const body = { name: "forged", mode: "live", scopes: ["clips.read"], expires_in_days: null };
    const noToken = await web("POST", "/keys", { origin: clipd().url }, body);
    expect(noToken.status).toBe(403);
    expect(await noToken.json()).toMatchObject({ error: { code: "csrf_failed" } });
    const foreign = await web("POST", "/keys", { origin: "https://evil.example", "x-csrf-token": csrf_token }, body);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: "csrf_failed" } });
    const keys = (await (await web("GET", "/keys")).json()) as { keys: Array<{ name: string }> };
    expect(keys.keys.map((k) => k.name)).not.toContain("forged");
  });

  it("shows the balance the operator's `clipd credit add` tops up", async () => {
    const { account } = (await (await web("GET", "/session")).json()) as { account: { id: string } };
    const before = ((await (await web("GET", "/billing")).json()) as { balance: { credit_cents: number } }).balance
      .credit_cents;
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Billing" }).click();
    const balance = page.getByRole("region", { name: "Balance" });
    await balance.getByText(dollars(before)).waitFor();
    await clipd().cli(["credit", "add", "--account", account.id, "--cents", "2500"]);
    await page.reload();
    await balance.getByText(dollars(before + 2500)).waitFor();
  });

  it("photographs every page at phone and desktop width", async () => {
    for (const [name, path, title] of [
      ["keys", "/keys", "API keys"],
      ["billing", "/billing", "Billing"],
      ["webhooks", "/webhooks", "Webhooks"],
      ["account", "/account", "Account"],
    ] as const) {
      await screenshot(page, name, url(path), () => heading(title).waitFor());
    }
    const signedOut = await browser().newContext();
    const out = await signedOut.newPage();
    await screenshot(out, "sign-in", url("/signin"), () =>
      out.getByRole("heading", { level: 1, name: "Sign in" }).waitFor(),
    );
    await screenshot(out, "sign-up", url("/signup"), () =>
      out.getByRole("heading", { level: 1, name: /Create your account/ }).waitFor(),
    );
    await signedOut.close();
  });
});

const dollars = (cents: number) =>
  new Intl.NumberFormat("en", { style: "currency", currency: "USD" }).format(cents / 100);
