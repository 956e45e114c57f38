/**
 * What a clip job adds to its run's input from the account's brand: the kit's snapshot as
 * `brand` (daemon/render/brand.ts) and the cover art as `cover` (the episode's own over the kit's),
 * read inside the job's transaction so the run is made from one consistent view.
 */
import type { BrandSnapshot } from "../render/brand.js";
import { Refused } from "../domain/errors.js";
import type { Queryable } from "../store/db.js";
import { episodeCoverKey } from "./episode-cover.js";
import { toKitRow, toSnapshot } from "./kit-rows.js";

/**
 * The kit's snapshot, its row share-locked until the job's transaction ends: an edit waits for the
 * job's run to be committed, so the edit's check of which files live runs still name sees it.
 */
export async function kitSnapshot(q: Queryable, accountId: string, kitId: string): Promise<BrandSnapshot | undefined> {
  const { rows } = await q.query(`select * from brand_kits where id = $1 and account_id = $2 for share`, [
    kitId,
    accountId,
  ]);
  return rows[0] ? toSnapshot(toKitRow(rows[0])) : undefined;
}

/** Refuses a kit the request names that the account does not have (null clears, so it passes). */
export async function assertKit(q: Queryable, accountId: string, kitId: string | null | undefined): Promise<void> {
  if (!kitId) return;
  if (!(await kitSnapshot(q, accountId, kitId))) {
    throw new Refused(
      "invalid_request",
      `body field "brand_kit": no brand kit ${kitId} on this account; list them with GET /api/v1/brand-kits`,
      { context: { field: "brand_kit" } },
    );
  }
}

/**
 * The run input's brand and cover. A kit deleted since the look named it is dropped (`kit`
 * comes back null, so the job records the look it really rendered).
 */
export async function brandRunInput(
  q: Queryable,
  o: { accountId: string; episodeId: string; kitId: string | null | undefined },
): Promise<{ kit: string | null; input: { brand?: BrandSnapshot; cover?: { key: string } } }> {
  const brand = o.kitId ? await kitSnapshot(q, o.accountId, o.kitId) : undefined;
  const coverKey = (await episodeCoverKey(q, o.episodeId)) ?? brand?.cover_key;
  return {
    kit: brand ? brand.id : null,
    input: { ...(brand ? { brand } : {}), ...(coverKey ? { cover: { key: coverKey } } : {}) },
  };
}
