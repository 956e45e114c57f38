// The Brand kits page in Debian's Chromium against a real `clipd start`: reached from the main
// navigation, a kit is made, its accent colour set with the colour input and saved, a real TTF font
// and a PNG logo uploaded as files (the page shows the family read from the font), and the kit
// deleted. What the page did is checked through the API's own answer, not only on screen.
import path from "node:path";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import sharp from "sharp";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cookieHeader, useBrowser, useWebClipd } from "../helpers/browser.js";
import { repoRoot } from "../helpers/cli.js";

const FONT = path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf");

describe("the Brand kits page in a browser", () => {
  const browser = useBrowser();
  const clipd = useWebClipd();
  let context: BrowserContext;
  let page: Page;
  let logo: string;
  const url = (p: string) => clipd().url + p;
  const kits = async () =>
    (
      await (
        await fetch(url("/web/api/v1/brand-kits"), { headers: { cookie: await cookieHeader(context, clipd().url) } })
      ).json()
    ).brand_kits;

  beforeAll(async () => {
    logo = path.join(await mkdtemp(path.join(os.tmpdir(), "clipd-logo-")), "logo.png");
    await writeFile(
      logo,
      await sharp({ create: { width: 60, height: 30, channels: 4, background: "#e11d48" } })
        .png()
        .toBuffer(),
    );
    context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(60_000); // a ceiling on the waits below, not a delay
    page = await context.newPage();
  });
  afterAll(() => context?.close());

  it("makes a kit, sets its colour, uploads a font and a logo, and deletes it", async () => {
    await page.goto(url("/signup"));
    await page.getByLabel("Email", { exact: true }).fill("brand@example.com");
    await page.getByLabel("Password", { exact: true }).fill("a long enough password");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { level: 1, name: "Episodes" }).waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Brand kits" }).click();
    await page.getByRole("heading", { level: 1, name: "Brand kits" }).waitFor();
    await page.getByText("No kits yet.").waitFor();

    await page.getByRole("region", { name: "New kit" }).getByLabel("Name").fill("Morning show");
    await page.getByRole("button", { name: "Make kit" }).click();
    const card = page.getByRole("article", { name: "Morning show" });
    await card.waitFor();
    await card.getByLabel("Active word and emphasis colour").fill("#22cc88");
    await card.getByLabel(/^Intro card text/).fill("The Morning Show");
    // Where the intro plays (issue 39): after the clip by default; this kit plays it first.
    await card.getByLabel("Intro plays").selectOption("card_first");
    await card.getByRole("button", { name: "Save kit" }).click();
    await card.getByText(/^Saved\./).waitFor();
    expect((await kits())[0]).toMatchObject({
      name: "Morning show",
      colours: { accent: "#22CC88" },
      intro: { text: "The Morning Show", seconds: 1.5, order: "card_first" },
      font: { family: "DejaVu Sans", bundled: true },
    });

    await card.getByLabel("Upload font (TTF or OTF)").setInputFiles(FONT);
    // The built-in font has the same family and file name: the page says which one the kit holds.
    await card.getByText("Font: DejaVu Sans (DejaVuSans-Bold.ttf, uploaded)").waitFor();
    await card.getByLabel("Upload logo (PNG or SVG)").setInputFiles(logo);
    await card.getByRole("group", { name: "Logo (uploaded)" }).waitFor();
    expect((await kits())[0]).toMatchObject({
      font: { family: "DejaVu Sans", file_name: "DejaVuSans-Bold.ttf", bundled: false },
      logo: { uploaded: true },
    });

    // A file that is not a font is refused with the server's message, naming the field.
    await card.getByLabel("Upload font (TTF or OTF)").setInputFiles(logo);
    await card
      .getByRole("alert")
      .getByText(/font: the file is not a TrueType/)
      .waitFor();

    page.once("dialog", (d) => void d.accept());
    await card.getByRole("button", { name: "Delete Morning show" }).click();
    await page.getByText("No kits yet.").waitFor();
    expect(await kits()).toEqual([]);
  });
});
