// The order test files start in. Vitest runs the longest first when it has timings from an earlier
// run, and the largest files first when it has none, as on CI's fresh clone. File size says little
// here: a short e2e file transcribes 20 minutes of speech. Without timings, the tiers that hold the
// long files start first so that none of them is left running alone at the end while the other
// worker idles; within a tier, and whenever timings exist, Vitest's own order stands.
import { BaseSequencer, type TestSpecification } from "vitest/node";

const TIERS = ["/test/e2e/", "/test/chaos/", "/test/browser/", "/test/integration/", "/test/api/", "/test/unit/"];
const tier = (file: string) => {
  const i = TIERS.findIndex((t) => file.replaceAll("\\", "/").includes(t));
  return i < 0 ? TIERS.length : i;
};

export default class TierSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = files.every((f) => this.ctx.cache.getTestSpecificationResult(f));
    if (timed) return sorted;
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => tier(a.f.moduleId) - tier(b.f.moduleId) || a.i - b.i)
      .map((x) => x.f);
  }
}
