/**
 * An account's brand kits: rows in `brand_kits`, files in storage under brand/<account>/<kit>/.
 *
 * Guarantees: a kit is seen only by its account (every read and write names it); an account keeps
 * at most `brand.kits_per_account` (counted under the account row's lock, so two creates at once
 * cannot both pass); every file is checked by daemon/brand/files.ts before it is stored, under a
 * new key each time, and a replaced or deleted kit's files are removed only when no queued or
 * running clip run names them (its snapshot, daemon/render/brand.ts, still points at them).
 * Deleting a kit also clears the account's saved clip defaults where they name it.
 */
import { randomUUID } from "node:crypto";
import { Conflict, NotFound } from "../domain/errors.js";
import type { Storage } from "../storage/storage.js";
import type { Db, Queryable, Within } from "../store/db.js";
import { storeBundledFont } from "./bundled-fonts.js";
import { fetchBrandFile } from "./fetch-file.js";
import { checkCover, checkFont, checkLogo, maxBytesOf, type BrandFileKind, type BrandLimits } from "./files.js";
import {
  applyInput,
  DEFAULT_COLOURS,
  LOGO_OPACITY_DEFAULT,
  LOGO_SIZE,
  toKitRow,
  type KitInput,
  type KitRow,
} from "./kit-rows.js";

export interface BrandKitDeps {
  db: Db;
  storage: Storage;
  /** The effective config: its brand block bounds the kits, its network block the links. */
  // biome-ignore lint/suspicious/noExplicitAny: the loaded config; each reader takes its own section
  config: { brand: BrandLimits & { kits_per_account: number } } & Readonly<Record<string, any>>;
}

export const kitNotFound = (id: string) =>
  new NotFound("not_found", `no brand kit ${id} on this account`, { context: { field: "id" } });

/** Whether a queued or running run still carries `key` (in its brand snapshot or cover). */
export async function keyInUse(q: Queryable, key: string): Promise<boolean> {
  const { rows } = await q.query(
    `select 1 from runs where state in ('queued', 'running') and strpos(input::text, $1) > 0 limit 1`,
    [JSON.stringify(key)],
  );
  return rows.length > 0;
}

/** Removes stored files no live run needs; one that is needed stays (a render still reads it). */
export async function dropFiles(
  d: Pick<BrandKitDeps, "db" | "storage">,
  keys: Array<string | null | undefined>,
): Promise<void> {
  for (const key of keys) {
    if (!key || key.startsWith("brand/bundled/")) continue;
    if (await keyInUse(d.db, key)) continue;
    await d.storage.remove(key).catch(() => {});
  }
}

export class BrandKits {
  constructor(private readonly d: BrandKitDeps) {}

  async list(accountId: string): Promise<KitRow[]> {
    const { rows } = await this.d.db.query(`select * from brand_kits where account_id = $1 order by created_at, id`, [
      accountId,
    ]);
    return rows.map(toKitRow);
  }

  async find(q: Queryable, accountId: string, id: string): Promise<KitRow | undefined> {
    const { rows } = await q.query(`select * from brand_kits where id = $1 and account_id = $2`, [id, accountId]);
    return rows[0] ? toKitRow(rows[0]) : undefined;
  }

  async get(accountId: string, id: string): Promise<KitRow> {
    const kit = await this.find(this.d.db, accountId, id);
    if (!kit) throw kitNotFound(id);
    return kit;
  }

  /** Makes a kit; `within` runs in its transaction once the row is in (an Idempotency-Key's answer). */
  async create(accountId: string, input: KitInput & { name: string }, within?: Within<KitRow>): Promise<KitRow> {
    const base = {
      name: "",
      colours: { ...DEFAULT_COLOURS },
      logo: { corner: "top-right" as const, size: LOGO_SIZE.default, opacity: LOGO_OPACITY_DEFAULT },
      intro: null,
      outro: null,
      show_name: null,
    };
    const fields = applyInput(base, input);
    const font = input.bundled_font ? await storeBundledFont(this.d.storage, input.bundled_font) : null;
    const id = randomUUID();
    const max = this.d.config.brand.kits_per_account;
    await this.d.db.transaction(async (tx) => {
      await tx.query(`select id from accounts where id = $1 for update`, [accountId]);
      const { rows } = await tx.query(`select count(*)::int as n from brand_kits where account_id = $1`, [accountId]);
      if (rows[0].n >= max) {
        throw new Conflict(
          "limit_reached",
          `this account has ${rows[0].n} brand kits, the most it may keep (brand.kits_per_account ` +
            `is ${max}); delete one first`,
          { context: { limit: "brand_kits", max } },
        );
      }
      await tx.query(
        `insert into brand_kits (id, account_id, name, primary_colour, accent_colour, background_colour, font, logo, intro, outro, show_name)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          id,
          accountId,
          fields.name,
          fields.colours.primary,
          fields.colours.accent,
          fields.colours.background,
          font && JSON.stringify(font),
          JSON.stringify(fields.logo),
          fields.intro && JSON.stringify(fields.intro),
          fields.outro && JSON.stringify(fields.outro),
          fields.show_name,
        ],
      );
      if (within) await within(tx, (await this.find(tx, accountId, id))!);
    });
    return this.get(accountId, id);
  }

  async update(accountId: string, id: string, input: KitInput): Promise<KitRow> {
    const kit = await this.get(accountId, id);
    const fields = applyInput(kit, input);
    const logo =
      input.logo === null
        ? { corner: fields.logo.corner, size: fields.logo.size, opacity: fields.logo.opacity }
        : fields.logo;
    let font = kit.font;
    if (input.font === null) font = null;
    if (input.bundled_font) font = await storeBundledFont(this.d.storage, input.bundled_font);
    const cover = input.cover === null ? null : kit.cover_key;
    const { rows } = await this.d.db.query(
      `update brand_kits set name = $3, primary_colour = $4, accent_colour = $5, background_colour = $6, font = $7, logo = $8, intro = $9, outro = $10,
         cover_key = $11, show_name = $12, updated_at = now() where id = $1 and account_id = $2 returning id`,
      [
        id,
        accountId,
        fields.name,
        fields.colours.primary,
        fields.colours.accent,
        fields.colours.background,
        font && JSON.stringify(font),
        JSON.stringify(logo),
        fields.intro && JSON.stringify(fields.intro),
        fields.outro && JSON.stringify(fields.outro),
        cover,
        fields.show_name,
      ],
    );
    if (!rows.length) throw kitNotFound(id);
    await dropFiles(this.d, [
      font?.key !== kit.font?.key ? kit.font?.key : null,
      logo.key !== kit.logo.key ? kit.logo.key : null,
      cover !== kit.cover_key ? kit.cover_key : null,
    ]);
    return this.get(accountId, id);
  }

  async remove(accountId: string, id: string): Promise<void> {
    const kit = await this.get(accountId, id);
    await this.d.db.transaction(async (tx) => {
      await tx.query(`delete from brand_kits where id = $1 and account_id = $2`, [id, accountId]);
      // A saved default naming a kit that is gone would only be dropped at each export (run-input.ts)
      // while GET /me still showed it: it goes with the kit.
      await tx.query(
        `update accounts set clip_defaults = clip_defaults - 'brand_kit' where ` +
          `id = $1 and clip_defaults->>'brand_kit' = $2`,
        [accountId, id],
      );
    });
    await dropFiles(this.d, [kit.font?.key, kit.logo.key, kit.cover_key]);
  }

  /** Stores a font, logo or cover sent as bytes or by link (`url`), replacing the kit's one. */
  async putFile(
    accountId: string,
    id: string,
    kind: BrandFileKind,
    from: { bytes?: Buffer; url?: string; fileName?: string },
  ): Promise<KitRow> {
    const kit = await this.get(accountId, id);
    const limits = this.d.config.brand;
    const bytes =
      from.url !== undefined
        ? await fetchBrandFile(from.url, { config: this.d.config, maxBytes: maxBytesOf(kind, limits), field: kind })
        : from.bytes!;
    const dir = `brand/${accountId}/${id}`;
    const tag = randomUUID().slice(0, 8);
    let old: string | undefined | null;
    if (kind === "font") {
      const f = await checkFont(bytes, limits, accountId);
      const key = `${dir}/font-${tag}.${f.ext}`;
      await this.d.storage.write(key, f.bytes);
      const fileName = cleanFileName(
        from.fileName ?? (from.url ? new URL(from.url).pathname.split("/").pop() : undefined),
        `${f.family}.${f.ext}`,
      );
      await this.d.db.query(`update brand_kits set font = $3, updated_at = now() where id = $1 and account_id = $2`, [
        id,
        accountId,
        JSON.stringify({ key, family: f.family, file_name: fileName }),
      ]);
      old = kit.font?.key;
    } else {
      const img =
        kind === "logo"
          ? await checkLogo(bytes, limits, accountId)
          : await checkCover(bytes, limits, "cover", accountId);
      const key = `${dir}/${kind}-${tag}.${img.ext}`;
      await this.d.storage.write(key, img.bytes);
      if (kind === "logo")
        await this.d.db.query(
          `update brand_kits set logo = coalesce(logo, '{}'::jsonb) || $3::jsonb, ` +
            `updated_at = now() where id = $1 and account_id = $2`,
          [id, accountId, JSON.stringify({ key })],
        );
      else
        await this.d.db.query(
          `update brand_kits set cover_key = $3, updated_at = now() where id = $1 and account_id = $2`,
          [id, accountId, key],
        );
      old = kind === "logo" ? kit.logo.key : kit.cover_key;
    }
    await dropFiles(this.d, [old]);
    return this.get(accountId, id);
  }
}

/** A file name shown back to the caller: its last part, printable, at most 120 characters. */
function cleanFileName(name: string | undefined, fallback: string): string {
  const clean = (name ?? "")
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 120);
  return clean || fallback;
}
