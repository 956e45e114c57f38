// The decoder child's deadline counts processor time read from /proc (decode-jail.ts): the reading
// must agree with what Node itself reports for a process, and grow with work, not with waiting.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { cpuMs } from "../../daemon/render/decode-jail.js";

const ownMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Works until this process has used `ms` more processor time (on a busy machine that takes longer). */
function spin(ms: number): void {
  const end = ownMs() + ms;
  while (ownMs() < end) for (let i = 0; i < 10_000; i++) Math.sqrt(i);
}

describe("processor time from /proc", () => {
  it("matches process.cpuUsage() within a tick or two, and counts work but not a wait", async () => {
    const before = await cpuMs(process.pid);
    expect(before).toBeTypeOf("number");
    expect(Math.abs(before! - ownMs())).toBeLessThan(100);
    spin(300);
    const worked = await cpuMs(process.pid);
    expect(worked! - before!).toBeGreaterThanOrEqual(250);
    // A wait on another process's work: this one idles until the child has spent 300 ms of its own.
    const child = spawn(process.execPath, [
      "-e",
      "const t=()=>{const u=process.cpuUsage();return (u.user+u.system)/1000};const e=t()+300;while(t()<e);",
    ]);
    await once(child, "exit");
    const waited = await cpuMs(process.pid);
    expect(waited! - worked!).toBeLessThan(150);
  });

  it("answers undefined for a process that is not there", async () => {
    expect(await cpuMs(2 ** 22 + 7)).toBeUndefined();
  });
});
