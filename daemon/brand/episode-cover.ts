/**
 * An episode's own cover art (issue 19, item 6): set by upload or by link, cleared, and read when
 * a clip job starts. It stands over the brand kit's cover and over art embedded in the episode's
 * file, as the still behind an audio episode's clips (the cut stage reads `input.cover.key`).
 */
import { randomUUID } from "node:crypto";
import { NotFound } from "../domain/errors.js";
import type { Queryable } from "../store/db.js";
import { fetchBrandFile } from "./fetch-file.js";
import { checkCover } from "./files.js";
import { dropFiles, type BrandKitDeps } from "./kits.js";

const episodeNotFound = (id: string) =>
  new NotFound("not_found", `no episode ${id} on this account`, { context: { field: "id" } });

async function currentCover(q: Queryable, accountId: string, episodeId: string): Promise<{ cover_key: string | null }> {
  const { rows } = await q.query(`select cover_key from episodes where id = $1 and account_id = $2`, [
    episodeId,
    accountId,
  ]);
  if (!rows[0]) throw episodeNotFound(episodeId);
  return { cover_key: rows[0].cover_key ?? null };
}

export interface CoverAnswer {
  episode_id: string;
  cover: { set: boolean; width?: number; height?: number; source?: "upload" | "url" };
}

export class EpisodeCovers {
  constructor(private readonly d: BrandKitDeps) {}

  /** The episode's cover key; NotFound when the account has no such episode. */
  current(accountId: string, episodeId: string): Promise<{ cover_key: string | null }> {
    return currentCover(this.d.db, accountId, episodeId);
  }

  async set(accountId: string, episodeId: string, from: { bytes?: Buffer; url?: string }): Promise<CoverAnswer> {
    const before = await currentCover(this.d.db, accountId, episodeId);
    const limits = this.d.config.brand;
    const bytes =
      from.url !== undefined
        ? await fetchBrandFile(from.url, { config: this.d.config, maxBytes: limits.image_max_bytes, field: "cover" })
        : from.bytes!;
    const img = await checkCover(bytes, limits, "cover", accountId);
    const key = `episodes/${episodeId}/cover-${randomUUID().slice(0, 8)}.${img.ext}`;
    await this.d.storage.write(key, img.bytes);
    const { rows } = await this.d.db.query(
      `update episodes set cover_key = $3, updated_at = now() where id = $1 and account_id = $2 returning id`,
      [episodeId, accountId, key],
    );
    if (!rows.length) {
      await this.d.storage.remove(key).catch(() => {});
      throw episodeNotFound(episodeId);
    }
    await dropFiles(this.d, [before.cover_key]);
    return {
      episode_id: episodeId,
      cover: { set: true, width: img.width, height: img.height, source: from.url !== undefined ? "url" : "upload" },
    };
  }

  async clear(accountId: string, episodeId: string): Promise<CoverAnswer> {
    const before = await currentCover(this.d.db, accountId, episodeId);
    await this.d.db.query(
      `update episodes set cover_key = null, updated_at = now() where id = $1 and account_id = $2`,
      [episodeId, accountId],
    );
    await dropFiles(this.d, [before.cover_key]);
    return { episode_id: episodeId, cover: { set: false } };
  }
}

/** The cover key an episode's clip runs use, if the episode has its own. */
export async function episodeCoverKey(q: Queryable, episodeId: string): Promise<string | undefined> {
  const { rows } = await q.query(`select cover_key from episodes where id = $1`, [episodeId]);
  return rows[0]?.cover_key ?? undefined;
}
