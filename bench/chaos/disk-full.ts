/**
 * Disk full bench: a clipd whose storage/ and work/ are DISK_MIB (default 64) MiB tmpfs mounts
 * (root on Linux; says why and exits 2 otherwise). Tried, in rounds of DISK_ROUNDS (default 5):
 * uploads larger than the room left (one at a time, then 4 at once racing for the last space),
 * a paid export with work/ full (ffmpeg's output), a paid export with storage/ full (the stored
 * result); then each again with the space back. Held: 507 insufficient_storage (or a job failed
 * with that code and refunded) and no partial file, or success once there is room.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/chaos/disk-full.js
 */
import { readFile } from "node:fs/promises";
import { TEST_MEDIA } from "../../test/helpers/media.js";
import { openDiskWorld, paidExport, putUpload, tmpfsRefusal } from "../../test/chaos/disk-full-core.js";

const why = await tmpfsRefusal();
if (why) {
  console.error(`disk-full: cannot run here: ${why}`);
  process.exit(2);
}
const MIB = Number(process.env.DISK_MIB ?? 64);
const ROUNDS = Number(process.env.DISK_ROUNDS ?? 5);
const w = await openDiskWorld(MIB);
const mp3 = await readFile(TEST_MEDIA.jfkMp3);
const tally = new Map<string, { tried: number; held: number; lost: string[] }>();
const note = (what: string, ok: boolean, detail: string) => {
  const t = tally.get(what) ?? { tried: 0, held: 0, lost: [] };
  t.tried++;
  if (ok) t.held++;
  else t.lost.push(detail);
  tally.set(what, t);
};
// biome-ignore lint/suspicious/noExplicitAny: bench harness: untyped JSON and tool objects
const clean507 = (u: { status: number; body: any; leftover: string[] }) =>
  u.status === 507 &&
  u.body?.error?.code === "insufficient_storage" &&
  u.body.error.limit === "disk_space" &&
  u.leftover.every((f) => !f.endsWith(".part"));
try {
  const acc = await w.server.account({ creditCents: 100_000 });
  for (let round = 1; round <= ROUNDS; round++) {
    await w.fill(w.storageDir, 4 * 1024 * 1024);
    const one = await putUpload(w, acc.live, 16 * 1024 * 1024, mp3);
    note("upload, 16 MiB into 4 MiB left", clean507(one), `${one.status} ${JSON.stringify(one.body)} ${one.leftover}`);
    const race = await Promise.all([0, 1, 2, 3].map(() => putUpload(w, acc.live, 3 * 1024 * 1024, mp3)));
    // 4 × 3 MiB into 4 MiB: one may fit, the others must be clean refusals.
    const raceOk = race.every((u) => u.status === 200 || clean507(u)) && race.some((u) => u.status === 507);
    note("upload, 4 at once racing for the last 4 MiB", raceOk, race.map((u) => u.status).join(","));
    await w.free(w.storageDir);
    const after = await putUpload(w, acc.live, 16 * 1024 * 1024, mp3);
    note("upload with room again", after.status === 200, `${after.status} ${JSON.stringify(after.body)}`);

    for (const [label, dir] of [
      ["work/ full (ffmpeg output)", w.workDir],
      ["storage/ full (stored result)", w.storageDir],
    ] as const) {
      const e = await paidExport(w, acc, () => w.fill(dir, 64 * 1024));
      const ok =
        e.job.status === "failed" &&
        e.job.error?.code === "insufficient_storage" &&
        e.job.charged_cents === 0 &&
        JSON.stringify(e.ledger) ===
          JSON.stringify([
            ["export", -25],
            ["export_refund", 25],
          ]) &&
        !e.leftover.length &&
        !e.work.length;
      note(
        `export, ${label}`,
        ok,
        JSON.stringify({
          status: e.job.status,
          error: e.job.error,
          ledger: e.ledger,
          leftover: e.leftover,
          work: e.work,
        }),
      );
      await w.free(dir);
    }
    const done = await paidExport(w, acc);
    note("export with room again", done.job.status === "completed", JSON.stringify(done.job.error));
    // Rendered clips pile up in the small mounts: clear the runs between rounds.
    await w.server.app.storage.remove("runs");
    await w.server.app.storage.remove("uploads");
  }
} finally {
  await w.close();
}
let tried = 0,
  held = 0;
for (const [what, t] of tally) {
  tried += t.tried;
  held += t.held;
  console.log(`  ${what.padEnd(48)} tried ${t.tried}  held ${t.held}  lost ${t.lost.length}`);
  for (const l of t.lost.slice(0, 3)) console.log(`      ${l.slice(0, 300)}`);
}
console.log(
  `tried ${tried}  held ${held}  lost ${tried - held}  (storage/ and work/ on ${MIB} MiB tmpfs, ${ROUNDS} rounds)`,
);
process.exitCode = tried === held ? 0 : 1;
