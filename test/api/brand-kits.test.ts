// Brand kits and episode cover art over real HTTP on loopback (issue 19, items 2 and 6): kits with
// colours, a real TrueType font whose family fontkit reads, PNG and SVG logos (the SVG stored as a
// PNG), the limits, one account's kits hidden from another, and a clip export naming a kit, whose
// run carries the kit's snapshot as input.brand and the cover art as input.cover. Over 250 lines
// because every case shares one server per backend (with its https media server); split, each part
// would start its own.
import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountRemoval } from "../../daemon/web/removal.js";
import { openApiServer, type ApiServer } from "../helpers/api.js";
import { testBackends } from "../helpers/backends.js";
import { repoRoot } from "../helpers/cli.js";
import { contractProblem } from "../helpers/contract.js";
import { startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { mcpClient, ok, refusal } from "../helpers/mcp.js";

const FONT = readFileSync(path.join(repoRoot, "test", "fixtures", "fonts", "DejaVuSans-Bold.ttf"));
const SVG =
  `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="40" ` +
  `height="20"><rect width="40" height="20" fill="#e11d48"/></svg>`;
const png = (w: number, h: number, colour = "#2563eb") =>
  sharp({ create: { width: w, height: h, channels: 4, background: colour } })
    .png()
    .toBuffer();
const jpeg = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: "#16a34a" } })
    .jpeg()
    .toBuffer();

describe.each(testBackends())("brand kits on %s", (backend) => {
  let s: ApiServer;
  let media: TestHttpsServer;
  let acc: { accountId: string; live: string; test: string };
  beforeAll(async () => {
    media = await startHttpsServer();
    s = await openApiServer(backend, {
      brand: { kits_per_account: 6, image_max_bytes: 200_000 },
      network: { allow_loopback: true, extra_ca: media.caPath },
    });
    acc = await s.account({ plan: true, creditCents: 500 });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await media?.close();
  });

  /** PUT of raw bytes, checked against the OpenAPI document like every other answer. */
  async function put(key: string, p: string, bytes: Buffer | string, type: string) {
    const res = await fetch(`${s.base}${p}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": type },
      body: bytes,
    });
    const body = await res.json();
    const problem = contractProblem("PUT", p, res.status, body);
    if (problem) throw new Error(problem);
    return { status: res.status, body };
  }
  const kitRow = async (id: string) => (await s.app.db.query(`select * from brand_kits where id = $1`, [id])).rows[0];
  const logoKey = async (id: string) => {
    const logo = (await kitRow(id)).logo;
    return (typeof logo === "string" ? JSON.parse(logo) : logo).key as string;
  };
  const headOf = async (key: string) => (await s.app.storage.read(key)).subarray(0, 8);
  const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  it("creates a kit with colours, reads back, patches and refuses bad fields by name", async () => {
    const made = await s.call(acc.live, "POST", "/api/v1/brand-kits", {
      name: "Morning show",
      colours: { primary: "#ffffff", accent: "#ff5500", background: "#101820" },
      intro: { text: "The Morning Show", seconds: 1.5 },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: "Morning show",
      colours: { primary: "#FFFFFF", accent: "#FF5500", background: "#101820" },
      font: null,
      // The intro's order defaults to hook first (issue 39).
      intro: { text: "The Morning Show", seconds: 1.5, order: "hook_first" },
      outro: null,
    });
    expect(made.body.logo).toEqual({ uploaded: false, corner: "top-right", size: 0.15, opacity: 0.9 });
    const id = made.body.brand_kit_id;
    expect((await s.call(acc.live, "GET", `/api/v1/brand-kits/${id}`)).body.name).toBe("Morning show");
    expect(
      (await s.call(acc.live, "GET", "/api/v1/brand-kits")).body.brand_kits.map((k: any) => k.brand_kit_id),
    ).toEqual([id]);

    const patched = await s.call(acc.live, "PATCH", `/api/v1/brand-kits/${id}`, {
      colours: { accent: "#00AAFF" },
      logo: { corner: "bottom-left", size: 0.3, opacity: 0.5 },
      outro: { text: "Subscribe", seconds: 2 },
      bundled_font: "DejaVu Sans",
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      colours: { primary: "#FFFFFF", accent: "#00AAFF" },
      logo: { corner: "bottom-left", size: 0.3, opacity: 0.5 },
      outro: { text: "Subscribe", seconds: 2 },
      font: { family: "DejaVu Sans", bundled: true },
    });

    const refusals: Array<[unknown, string]> = [
      [{ colours: { primary: "red" } }, "colours.primary"],
      [{ colours: { accent: "#12345" } }, "colours.accent"],
      [{ logo: { size: 0.5 } }, "logo.size"],
      [{ logo: { corner: "middle" } }, "logo.corner"],
      [{ logo: { opacity: 1.5 } }, "logo.opacity"],
      [{ intro: { text: "x".repeat(81) } }, "intro.text"],
      [{ intro: { text: "Hi", order: "sometimes" } }, "intro.order"],
      [{ outro: { text: "Bye", seconds: 3 } }, "outro.seconds"],
      [{ bundled_font: "Comic Sans" }, "bundled_font"],
      [{}, "body"],
    ];
    for (const [body, field] of refusals) {
      const res = await s.call(acc.live, "PATCH", `/api/v1/brand-kits/${id}`, body);
      expect(res.status, field).toBe(400);
      expect(res.body.error.field, JSON.stringify(body)).toBe(field);
    }
    expect(
      (await s.call(acc.live, "POST", "/api/v1/brand-kits", { colours: { primary: "#FFFFFF" } })).body.error.field,
    ).toBe("name");
  });

  it(
    "takes a real TTF font and reads its family; refuses what is not a TTF " + "or OTF font, naming the field",
    async () => {
      const id = (await s.call(acc.live, "POST", "/api/v1/brand-kits", { name: "Fonts" })).body.brand_kit_id;
      const up = await put(acc.live, `/api/v1/brand-kits/${id}/font?file_name=DejaVuSans-Bold.ttf`, FONT, "font/ttf");
      expect(up.status).toBe(200);
      expect(up.body.font).toEqual({ family: "DejaVu Sans", file_name: "DejaVuSans-Bold.ttf", bundled: false });

      for (const [bytes, what] of [
        [await png(8, 8), /not a TrueType \(TTF\) or OpenType \(OTF\) font/],
        [Buffer.concat([Buffer.from("wOFF"), Buffer.alloc(64)]), /WOFF web font/],
        [Buffer.concat([Buffer.from([0, 1, 0, 0]), Buffer.alloc(200, 7)]), /damaged/],
      ] as const) {
        const bad = await put(acc.live, `/api/v1/brand-kits/${id}/font`, bytes, "font/ttf");
        expect(bad.status).toBe(400);
        expect(bad.body.error).toMatchObject({ code: "unsupported_type", field: "font" });
        expect(bad.body.error.message).toMatch(what);
      }
      // The refused uploads left the font as it was.
      expect((await s.call(acc.live, "GET", `/api/v1/brand-kits/${id}`)).body.font.family).toBe("DejaVu Sans");
      const none = await fetch(`${s.base}/api/v1/brand-kits/${id}/font`, {
        method: "PUT",
        headers: { authorization: `Bearer ${acc.live}` },
      });
      expect((await none.json()).error).toMatchObject({ code: "invalid_request", field: "body" });
    },
  );

  it("stores a PNG logo and an SVG logo as PNG, and refuses an SVG that reaches outside itself", async () => {
    const id = (await s.call(acc.live, "POST", "/api/v1/brand-kits", { name: "Logos" })).body.brand_kit_id;
    const first = await put(acc.live, `/api/v1/brand-kits/${id}/logo`, await png(64, 32), "image/png");
    expect(first.body.logo.uploaded).toBe(true);
    const pngKey = await logoKey(id);
    expect(await headOf(pngKey)).toEqual(PNG_MAGIC);

    const svg = await put(acc.live, `/api/v1/brand-kits/${id}/logo`, SVG, "image/svg+xml");
    expect(svg.status).toBe(200);
    const svgKey = await logoKey(id);
    expect(svgKey).toMatch(/\.png$/);
    expect(await headOf(svgKey)).toEqual(PNG_MAGIC);
    const drawn = await sharp(await s.app.storage.read(svgKey))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(drawn.info.width).toBe(1024); // drawn at 1024 px on its long side, whatever size it declares
    expect([...drawn.data.subarray(0, 3)]).toEqual([0xe1, 0x1d, 0x48]);
    expect(await s.app.storage.exists(pngKey)).toBe(false); // the replaced logo is gone
    // A declared size is only a scale: a huge one is drawn at 1024 px too, not refused.
    const huge = SVG.replace('width="40" height="20"', 'width="40000" height="20000" viewBox="0 0 40 20"');
    expect((await put(acc.live, `/api/v1/brand-kits/${id}/logo`, huge, "image/svg+xml")).status).toBe(200);
    expect((await sharp(await s.app.storage.read(await logoKey(id))).metadata()).width).toBe(1024);

    for (const evil of [
      `<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd" width="9" height="9"/></svg>`,
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg ` +
        `xmlns="http://www.w3.org/2000/svg">&x;</svg>`,
    ]) {
      const res = await put(acc.live, `/api/v1/brand-kits/${id}/logo`, evil, "image/svg+xml");
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "unsupported_type", field: "logo" });
    }
    const jpg = await put(acc.live, `/api/v1/brand-kits/${id}/logo`, await jpeg(16, 16), "image/jpeg");
    expect(jpg.body.error.message).toMatch(/PNG or SVG.*JPEG/);
  });

  it("keeps the limits: kits per account, image bytes, and a declared length over the cap", async () => {
    const other = await s.account();
    for (let i = 0; i < 6; i++)
      expect((await s.call(other.live, "POST", "/api/v1/brand-kits", { name: `Kit ${i}` })).status).toBe(201);
    const fourth = await s.call(other.live, "POST", "/api/v1/brand-kits", { name: "One too many" });
    expect(fourth.status).toBe(409);
    expect(fourth.body.error).toMatchObject({ code: "limit_reached", limit: "brand_kits", max: 6 });
    const id = (await s.call(other.live, "GET", "/api/v1/brand-kits")).body.brand_kits[0].brand_kit_id;
    const big = await put(other.live, `/api/v1/brand-kits/${id}/cover`, Buffer.alloc(200_001, 1), "image/png");
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: "too_big", max_bytes: 200_000 });
  });

  it("replays a kit's creation for the same Idempotency-Key, over HTTP and as a tool", async () => {
    const a = await s.account();
    const post = (body: unknown, key: string) =>
      s.call(a.live, "POST", "/api/v1/brand-kits", body, { "idempotency-key": key });
    const first = await post({ name: "Once" }, "kit-1");
    expect(first.status).toBe(201);
    const again = await post({ name: "Once" }, "kit-1");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.brand_kit_id).toBe(first.body.brand_kit_id);
    expect((await post({ name: "Another" }, "kit-1")).status).toBe(422);
    const client = await mcpClient(s.base, a.live);
    try {
      const args = { name: "From a chat, once", idempotency_key: "kit-2" };
      const made = ok(await client.callTool({ name: "create_brand_kit", arguments: args }));
      const repeat = ok(await client.callTool({ name: "create_brand_kit", arguments: args }));
      expect(repeat.brand_kit_id).toBe(made.brand_kit_id);
    } finally {
      await client.close();
    }
    const kits = (await s.call(a.live, "GET", "/api/v1/brand-kits")).body.brand_kits;
    expect(kits.map((k: any) => k.name).sort()).toEqual(["From a chat, once", "Once"]);
  });

  it("describes the operations in OpenAPI as extensions, uploads with their raw body types", async () => {
    const doc = await (await fetch(`${s.base}/openapi.json`)).json();
    const font = doc.paths["/api/v1/brand-kits/{id}/font"].put;
    expect(Object.keys(font.requestBody.content)).toEqual(["font/ttf", "font/otf", "application/octet-stream"]);
    expect(font.requestBody.required).toBe(false);
    expect(font.parameters.map((p: any) => p.name)).toEqual(["id", "url", "file_name"]);
    // Marked in the description: an "x-extension" keyword in a schema is refused by strict validators.
    expect(doc.paths["/api/v1/brand-kits"].post.requestBody.content["application/json"].schema.description).toMatch(
      /^Extension:/,
    );
    expect(
      doc.paths["/api/v1/episodes/{id}/clips"].post.requestBody.content["application/json"].schema.properties.brand_kit
        .description,
    ).toMatch(/^Extension:/);
  });

  it("serves MCP tools that make a kit and set its logo by link (a model sends no bytes)", async () => {
    const client = await mcpClient(s.base, acc.live);
    try {
      const made = ok(
        await client.callTool({
          name: "create_brand_kit",
          arguments: { name: "From a chat", colours: { accent: "#123456" } },
        }),
      );
      expect(made).toMatchObject({ name: "From a chat", colours: { accent: "#123456" } });
      const art = await png(30, 30, "#00ff00");
      media.route("/logo.png", (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(art));
      const withLogo = ok(
        await client.callTool({
          name: "upload_brand_kit_logo",
          arguments: { brand_kit_id: made.brand_kit_id, url: media.url("/logo.png") },
        }),
      );
      expect(withLogo.logo.uploaded).toBe(true);
      const noFile = refusal(
        await client.callTool({ name: "upload_brand_kit_font", arguments: { brand_kit_id: made.brand_kit_id } }),
      );
      expect(noFile).toMatchObject({ code: "invalid_request", field: "body" });
      expect(noFile.message).toMatch(/argument "url"/);
      ok(await client.callTool({ name: "delete_brand_kit", arguments: { brand_kit_id: made.brand_kit_id } }));
    } finally {
      await client.close();
    }
  });

  it("hides one account's kits from another", async () => {
    const id = (await s.call(acc.live, "POST", "/api/v1/brand-kits", { name: "Private" })).body.brand_kit_id;
    const stranger = await s.account();
    expect((await s.call(stranger.live, "GET", `/api/v1/brand-kits/${id}`)).status).toBe(404);
    expect((await s.call(stranger.live, "PATCH", `/api/v1/brand-kits/${id}`, { name: "Mine" })).status).toBe(404);
    expect((await s.call(stranger.live, "DELETE", `/api/v1/brand-kits/${id}`)).status).toBe(404);
    expect((await put(stranger.live, `/api/v1/brand-kits/${id}/logo`, await png(8, 8), "image/png")).status).toBe(404);
    expect((await s.call(stranger.live, "GET", "/api/v1/brand-kits")).body.brand_kits).toEqual([]);
    expect((await s.call(acc.live, "GET", `/api/v1/brand-kits/${id}`)).body.name).toBe("Private");
  });

  /** A ready episode with one clip not cut yet (its run may fail: only the run's input matters here). */
  async function readyEpisode(accountId: string) {
    const episodeId = crypto.randomUUID();
    await s.app.db.query(
      `insert into episodes (id, account_id, name, status, state) values ($1, $2, 'made', 'ready', '{}')`,
      [episodeId, accountId],
    );
    const data = {
      number: 1,
      ref: "c001",
      title: "Clip 1",
      start: 0,
      end: 10,
      duration: 10,
      pieces: [{ start: 0, end: 10 }],
      score: { value: 0.5, reasons: [] },
    };
    await s.app.db.query(
      `insert into clips (id, episode_id, account_id, number, ref, data) values ($1, $2, $3, 1, 'c001', $4)`,
      [crypto.randomUUID(), episodeId, accountId, JSON.stringify(data)],
    );
    return episodeId;
  }
  const runInputOf = async (jobId: string) => {
    const { rows } = await s.app.db.query(`select r.input from jobs j join runs r on r.id = j.run_id where j.id = $1`, [
      jobId,
    ]);
    return typeof rows[0].input === "string" ? JSON.parse(rows[0].input) : rows[0].input;
  };

  it("puts the kit's snapshot in a clip run's input, with the episode's cover " +
    "over the kit's; deleting the kit clears a default naming it", async () => {
    const kit = (
      await s.call(acc.live, "POST", "/api/v1/brand-kits", {
        name: "Exported",
        colours: { primary: "#FAFAFA", accent: "#22CC88", background: "#000033" },
        show_name: "The Show",
      })
    ).body;
    await put(acc.live, `/api/v1/brand-kits/${kit.brand_kit_id}/font`, FONT, "application/octet-stream");
    await put(acc.live, `/api/v1/brand-kits/${kit.brand_kit_id}/logo`, await png(40, 40), "image/png");
    await put(acc.live, `/api/v1/brand-kits/${kit.brand_kit_id}/cover`, await png(300, 300, "#ff0000"), "image/png");
    const episodeId = await readyEpisode(acc.accountId);

    const unknown = await s.call(acc.live, "POST", `/api/v1/episodes/${episodeId}/clips`, {
      clips: [1],
      brand_kit: crypto.randomUUID(),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe("brand_kit");

    const started = await s.call(acc.live, "POST", `/api/v1/episodes/${episodeId}/clips`, {
      clips: [1],
      brand_kit: kit.brand_kit_id,
    });
    expect(started.status).toBe(202);
    const input = await runInputOf(started.body.jobs[0].job_id);
    const row = await kitRow(kit.brand_kit_id);
    expect(input.brand).toMatchObject({
      id: kit.brand_kit_id,
      name: "Exported",
      colours: { primary: "#FAFAFA", accent: "#22CC88", background: "#000033" },
      font: { family: "DejaVu Sans" },
      logo: { corner: "top-right", size: 0.15, opacity: 0.9 },
      cover_key: row.cover_key,
      show_name: "The Show",
    });
    expect(await s.app.storage.exists(input.brand.font.key)).toBe(true);
    expect(await s.app.storage.exists(input.brand.logo.key)).toBe(true);
    expect(input.cover).toEqual({ key: row.cover_key });

    // The episode's own cover, fetched by link through the SSRF guard, stands over the kit's.
    const art = await jpeg(200, 200);
    media.route("/art.jpg", (_req, res) => res.writeHead(200, { "content-type": "image/jpeg" }).end(art));
    const byLink = await put(
      acc.live,
      `/api/v1/episodes/${episodeId}/cover?url=${encodeURIComponent(media.url("/art.jpg"))}`,
      "",
      "image/jpeg",
    );
    expect(byLink.body).toMatchObject({
      episode_id: episodeId,
      cover: { set: true, width: 200, height: 200, source: "url" },
    });
    // Saved as the account's default (as PATCH /clips/{id} save_as_default would), an export naming no kit takes it.
    await s.app.db.query(`update accounts set clip_defaults = $2 where id = $1`, [
      acc.accountId,
      JSON.stringify({ brand_kit: kit.brand_kit_id }),
    ]);
    expect((await s.call(acc.live, "GET", "/api/v1/me")).body.defaults.brand_kit).toBe(kit.brand_kit_id);
    const again = await s.call(acc.live, "POST", `/api/v1/episodes/${episodeId}/clips`, { clips: [1] });
    expect(again.status).toBe(202);
    const input2 = await runInputOf(again.body.jobs[0].job_id);
    expect(input2.cover.key).toMatch(new RegExp(`^episodes/${episodeId}/cover-.*\\.jpg$`));
    expect(input2.brand.id).toBe(kit.brand_kit_id);
    const missing = await put(
      acc.live,
      `/api/v1/episodes/${episodeId}/cover?url=${encodeURIComponent(media.url("/nothing.png"))}`,
      "",
      "image/png",
    );
    expect(missing.body.error).toMatchObject({ code: "fetch_failed", field: "url" });

    expect((await s.call(acc.live, "DELETE", `/api/v1/brand-kits/${kit.brand_kit_id}`)).body).toMatchObject({
      deleted: true,
    });
    expect((await s.call(acc.live, "GET", "/api/v1/me")).body.defaults.brand_kit).toBeNull();
    expect((await s.call(acc.live, "GET", `/api/v1/brand-kits/${kit.brand_kit_id}`)).status).toBe(404);
  }, 120_000);

  it("removes an account's kits, their files and its episodes' cover art when its data is removed", async () => {
    const gone = await s.account();
    const kit = (await s.call(gone.live, "POST", "/api/v1/brand-kits", { name: "Leaving" })).body.brand_kit_id;
    await put(gone.live, `/api/v1/brand-kits/${kit}/logo`, await png(20, 20), "image/png");
    const episodeId = crypto.randomUUID();
    await s.app.db.query(
      `insert into episodes (id, account_id, name, status, state) values ($1, $2, 'made', 'ready', '{}')`,
      [episodeId, gone.accountId],
    );
    await put(gone.live, `/api/v1/episodes/${episodeId}/cover`, await png(20, 20), "image/png");
    const logo = await logoKey(kit);
    const cover = (await s.app.db.query(`select cover_key from episodes where id = $1`, [episodeId])).rows[0].cover_key;
    expect(await s.app.storage.exists(logo)).toBe(true);
    await s.app.db.query(`update accounts set removal_due_at = now() - interval '1 minute' where id = $1`, [
      gone.accountId,
    ]);
    expect(await s.app.container.resolve(AccountRemoval).sweep()).toContain(gone.accountId);
    expect(
      (await s.app.db.query(`select count(*)::int as n from brand_kits where account_id = $1`, [gone.accountId]))
        .rows[0].n,
    ).toBe(0);
    expect(await s.app.storage.exists(logo)).toBe(false);
    expect(await s.app.storage.exists(cover)).toBe(false);
  });
});
