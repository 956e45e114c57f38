// The brand services an operation uses and a kit's answer, shared by the kit operations
// (brand-kits.ts) and the upload operations (brand-uploads.ts) so neither imports the other.
import { BrandKits } from "../../daemon/brand/kits.js";
import { EpisodeCovers } from "../../daemon/brand/episode-cover.js";
import { kitView } from "../../daemon/brand/kit-rows.js";
import type { OperationContext } from "../registry.js";
import type { FacadeServices } from "../services.js";
import { _authOf } from "./_account-testmode.js";

// One service per facade: they hold nothing but what FacadeServices already has.
const made = new WeakMap<FacadeServices, { kits: BrandKits; covers: EpisodeCovers }>();
export function brand(s: FacadeServices) {
  let b = made.get(s);
  if (!b) {
    const deps = { db: s.db, storage: s.storage, config: s.config };
    b = { kits: new BrandKits(deps), covers: new EpisodeCovers(deps) };
    made.set(s, b);
  }
  return b;
}

export const answer = (ctx: OperationContext, kit: Parameters<typeof kitView>[0]) => ({
  ...kitView(kit),
  livemode: _authOf(ctx).livemode,
});
