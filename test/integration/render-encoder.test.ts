// render.encoder: auto falls back to libx264 where no hardware encoder works, an explicit one that
// cannot encode is refused naming render.encoder (by the doctor and by a worker at start), and the
// flags finalEncodeArgs gives (encoder, threads) encode with the real ffmpeg.
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import {
  activeEncoder,
  AUTO_ENCODERS,
  chooseEncoder,
  configureEncoder,
  EncoderUnusableError,
  HARDWARE_ENCODERS,
  listedEncoders,
  probeEncoder,
  type VideoEncoder,
} from "../../daemon/render/encoder.js";
import { DEFAULT_CRF, finalEncodeArgs, probeMedia, THREAD_ARGS } from "../../daemon/render/render.js";
import { runClipd } from "../helpers/cli.js";
import { daemonEnv } from "../helpers/daemon-config.js";

const exec = promisify(execFile);

/** The hardware encoders that cannot encode on this machine (all of them without a GPU). */
async function unusable(): Promise<VideoEncoder[]> {
  const out: VideoEncoder[] = [];
  for (const hw of HARDWARE_ENCODERS) if (!(await probeEncoder(hw)).ok) out.push(hw);
  return out;
}

describe("render encoder", () => {
  it("auto picks libx264 when no hardware encoder passes its probe, and says why", async () => {
    const dead = await unusable();
    // a machine with a working one: the GPU path is benched, not tested here
    if (dead.length < HARDWARE_ENCODERS.length) return;
    const listed = await listedEncoders();
    expect(listed.has("libx264")).toBe(true);
    const auto = await chooseEncoder("auto");
    expect(auto.encoder).toBe("libx264");
    const named = AUTO_ENCODERS.filter((e) => listed.has(e));
    for (const hw of named) expect(auto.reason).toContain(`${hw} listed but its probe encode failed`);
    if (!named.length) expect(auto.reason).toContain("lists no hardware H.264 encoder");
    expect(await chooseEncoder("libx264")).toMatchObject({ encoder: "libx264", setting: "libx264" });
  });

  it("an explicit encoder that cannot encode is refused, naming render.encoder", async () => {
    for (const hw of await unusable()) {
      const err = await chooseEncoder(hw).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EncoderUnusableError);
      expect((err as EncoderUnusableError).field).toBe("render.encoder");
      expect((err as Error).message).toMatch(
        new RegExp(`^render\\.encoder: ${hw} cannot encode here \\(.+\\); set render\\.encoder to auto or libx264$`),
      );
    }
  });

  it("finalEncodeArgs encodes on the configured encoder with clipd's thread flags", async () => {
    const choice = await configureEncoder("auto");
    expect(activeEncoder()).toBe(choice);
    const args = finalEncodeArgs({ preset: "veryfast" });
    expect(args.join(" ")).toContain(THREAD_ARGS.join(" "));
    expect(args).toContain(choice.encoder);
    // The hardware encoders get the same quality number as x264's CRF (DEFAULT_CRF).
    expect(finalEncodeArgs({ encoder: "h264_nvenc", preset: "veryfast" }).join(" ")).toContain(
      `-c:v h264_nvenc -preset p3 -rc vbr -cq ${DEFAULT_CRF} -b:v 0`,
    );
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-encoder-"));
    const out = path.join(dir, "out.mp4");
    await exec("ffmpeg", [
      "-hide_banner",
      "-nostdin",
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=360x640:r=30:d=1",
      "-f",
      "lavfi",
      "-i",
      "sine=d=1",
      "-filter_complex",
      "[0:v]scale=360:640[v]",
      "-map",
      "[v]",
      "-map",
      "1:a",
      ...args,
      out,
    ]);
    expect(await probeMedia(out)).toMatchObject({
      width: 360,
      height: 640,
      videoCodec: "h264",
      videoProfile: "High",
      pixFmt: "yuv420p",
      audioCodec: "aac",
    });
  });

  it("clipd doctor names the encoder in use and refuses an unusable explicit one", async () => {
    const dead = await unusable();
    const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-doc-enc-"));
    const env = { ...process.env, CLIPD_DATA_DIR: dir, DATABASE_URL: "", CLIPD_CONFIG: "" };
    const ok = await runClipd(["doctor"], env);
    const auto = await chooseEncoder("auto");
    expect(ok.output).toContain(`ok    render encoder           ${auto.encoder}: ${auto.reason}`);
    if (!dead.length) return;
    const file = path.join(dir, "c.yaml");
    await writeFile(file, stringify({ render: { encoder: dead[0] } }));
    const bad = await runClipd(["doctor"], { ...env, CLIPD_CONFIG: file });
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(
      new RegExp(
        `FAIL  render encoder +render\\.encoder: ${dead[0]} cannot encode here[^\\n]*\\n\\s+fix: ` +
          `set render\\.encoder to auto`,
      ),
    );
  });

  it("a worker does not start on an explicit encoder that cannot encode", async () => {
    const dead = await unusable();
    if (!dead.length) return;
    const d = await daemonEnv("pglite", { render: { encoder: dead[0] } });
    const r = await runClipd(["work"], d.env, { timeoutMs: 60_000 });
    expect(r.code).not.toBe(0);
    expect(r.output).toContain(`render.encoder: ${dead[0]} cannot encode here`);
  });
});
