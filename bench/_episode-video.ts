// The video episode for bench/episode: the generated two-voice speech (test/fixtures/episodes.ts)
// under a 1080p, 30 fps picture that cuts to another scene every 30 s, as a filmed podcast's camera
// changes do (the salient crop is analysed per scene). Six 30 s scenes are encoded once and joined
// by stream copy until the speech ends (a few minutes the first time on a busy 2-core machine).
// All is cached under .cache/bench/ by a hash of what shapes it; its making is never measured.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { makeEpisode } from "../test/fixtures/episodes.js";

const exec = promisify(execFile);
const VERSION = 2;
const SCENE_SECONDS = 30;
const SCENES = [
  "testsrc2=size=1920x1080:rate=30",
  "smptehdbars=size=1920x1080:rate=30",
  "gradients=size=1920x1080:rate=30:speed=0.02:c0=#203050:c1=#d09060",
  "testsrc2=size=1920x1080:rate=30,hue=h=120",
  "gradients=size=1920x1080:rate=30:speed=0.03:c0=#402020:c1=#60c0a0:type=radial",
  "rgbtestsrc=size=1920x1080:rate=30",
];

const ffmpeg = (args: string[]) =>
  exec("ffmpeg", ["-hide_banner", "-nostdin", "-y", "-v", "error", ...args], { maxBuffer: 16 << 20 });

/** The six scenes, encoded once for any length (kept beside the videos). */
async function makeScenes(dir: string): Promise<string[]> {
  const key = createHash("sha256")
    .update(JSON.stringify([VERSION, SCENES, SCENE_SECONDS]))
    .digest("hex")
    .slice(0, 12);
  const parts = SCENES.map((_, i) => path.join(dir, `scene-${key}-${i}.mp4`));
  for (const [i, src] of SCENES.entries()) {
    if (existsSync(parts[i]!)) continue;
    // GOPs of 2 s and at most 8 Mbit/s, as a camera's or an editor's export has them.
    const x264 = [
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "23",
      "-maxrate",
      "8M",
      "-bufsize",
      "16M",
      "-g",
      "60",
      "-pix_fmt",
      "yuv420p",
    ];
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      `${src},format=yuv420p`,
      "-t",
      String(SCENE_SECONDS),
      ...x264,
      `${parts[i]}.tmp.mp4`,
    ]);
    await rename(`${parts[i]}.tmp.mp4`, parts[i]!);
  }
  return parts;
}

export async function makeVideoEpisode(root: string, seconds: number): Promise<string> {
  const speech = await makeEpisode({ seconds, ext: ".wav" });
  const key = createHash("sha256")
    .update(JSON.stringify([VERSION, seconds, SCENES, SCENE_SECONDS, path.basename(speech.file)]))
    .digest("hex")
    .slice(0, 12);
  const dir = path.join(root, ".cache", "bench", "episode-video");
  const file = path.join(dir, `episode-${seconds}s-${key}.mp4`);
  if (existsSync(file)) return file;
  await mkdir(dir, { recursive: true });
  const parts = await makeScenes(dir);
  const tmp = await mkdtemp(path.join(dir, ".tmp-"));
  try {
    const list = path.join(tmp, "list.txt");
    const count = Math.ceil(seconds / SCENE_SECONDS);
    await writeFile(
      list,
      Array.from({ length: count }, (_, i) => `file '${parts[i % parts.length]}'`).join("\n") + "\n",
    );
    const out = path.join(tmp, "out.mp4");
    await ffmpeg([
      "-f",
      "concat",
      "-safe",
      "0",
      "-i",
      list,
      "-i",
      speech.file,
      "-map",
      "0:v",
      "-map",
      "1:a",
      "-c:v",
      "copy",
      "-c:a",
      "aac",
      "-b:a",
      "128k",
      "-t",
      String(seconds),
      "-movflags",
      "+faststart",
      out,
    ]);
    await rename(out, file);
    return file;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
