// Whisper by default (issue 29, item 9): the background fetch of the whisper model against a real
// HTTPS server on loopback (test CA made with openssl, trusted with the downloader's `ca` option)
// serving the weightless test model under its own checksum entry. Complete with sha256, a wrong
// file refused and its part removed, a broken download resumed with a Range request, and an
// unreachable host said once in the log while the engine stays pocketsphinx.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { modelStatus, setModelStatus } from "../../daemon/ops/model-status.js";
import { fetchAutoModel, type AutoModelConfig } from "../../plugins/transcribe/engines/auto-model.js";
import { modelPath } from "../../plugins/transcribe/engines/models.js";
import { resolveAuto } from "../../plugins/transcribe/_pick.js";
import { startHttpsServer, type TestHttpsServer } from "../helpers/https-server.js";
import { fixtureModel } from "../helpers/media.js";

const MODEL = "for-tests-tiny.en";
const FILE = readFileSync(fixtureModel("for-tests-ggml-tiny.en.bin"));
const SHA = createHash("sha256").update(FILE).digest("hex");

/** A logger whose JSON lines are kept. */
function keptLog() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { log: pino({ level: "info" }, sink), lines };
}

describe("the whisper model fetched in the background", () => {
  let server: TestHttpsServer;
  let dataDir: string;
  const ranges: Array<string | undefined> = [];
  let mode: "whole" | "break-once" | "wrong" = "whole";
  beforeAll(async () => {
    server = await startHttpsServer({
      [`/ggml-${MODEL}.bin`]: (req, res) => {
        const range = req.headers.range;
        ranges.push(range);
        const from = range ? Number(/^bytes=(\d+)-$/.exec(range)?.[1] ?? 0) : 0;
        const body = mode === "wrong" ? Buffer.from(FILE).fill(7, 1000, 2000) : FILE;
        if (from > 0) {
          res.writeHead(206, {
            "content-length": body.length - from,
            "content-range": `bytes ${from}-${body.length - 1}/${body.length}`,
          });
          res.end(body.subarray(from));
          return;
        }
        res.writeHead(200, { "content-length": body.length });
        if (mode === "break-once") {
          mode = "whole";
          // Half the file, then the connection drops.
          res.write(body.subarray(0, 200_000), () => res.destroy());
          return;
        }
        res.end(body);
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
    setModelStatus(null);
    ranges.length = 0;
    mode = "whole";
  });
  const config = (host: string): AutoModelConfig => ({
    data_dir: dataDir,
    transcribe: { engine: "auto", auto_model: MODEL, model_host: host },
  });
  const fresh = async () => (dataDir = await mkdtemp(path.join(os.tmpdir(), "clipd-automodel-")));

  it("downloads the model, checks its sha256 and reports it in the status", async () => {
    await fresh();
    const { log, lines } = keptLog();
    const s = await fetchAutoModel(config(server.origin), log, { ca: server.ca });
    expect(s).toMatchObject({ model: MODEL, state: "ready", bytes: FILE.length, total: FILE.length });
    expect(modelStatus()?.state).toBe("ready");
    const got = await readFile(modelPath(MODEL, dataDir));
    expect(createHash("sha256").update(got).digest("hex")).toBe(SHA);
    expect(existsSync(`${modelPath(MODEL, dataDir)}.part`)).toBe(false);
    expect(lines.some((l) => /whisper model .* 100%/.test(String(l.msg)))).toBe(true);
    expect(ranges).toEqual([undefined]);
  });

  it("refuses a file with the wrong checksum and removes the part", async () => {
    await fresh();
    mode = "wrong";
    const { log } = keptLog();
    const s = await fetchAutoModel(config(server.origin), log, { ca: server.ca });
    expect(s.state).toBe("failed");
    expect(s.error).toMatch(/failed its checksum/);
    expect(existsSync(modelPath(MODEL, dataDir))).toBe(false);
    expect(existsSync(`${modelPath(MODEL, dataDir)}.part`)).toBe(false);
  });

  it("resumes a broken download with a Range request", async () => {
    await fresh();
    mode = "break-once";
    const { log } = keptLog();
    const first = await fetchAutoModel(config(server.origin), log, { ca: server.ca });
    expect(first.state).toBe("failed");
    const part = await stat(`${modelPath(MODEL, dataDir)}.part`);
    expect(part.size).toBeGreaterThan(0);
    expect(part.size).toBeLessThan(FILE.length);
    const second = await fetchAutoModel(config(server.origin), log, { ca: server.ca });
    expect(second.state).toBe("ready");
    expect(ranges).toEqual([undefined, `bytes=${part.size}-`]);
    const got = await readFile(modelPath(MODEL, dataDir));
    expect(createHash("sha256").update(got).digest("hex")).toBe(SHA);
  });

  it("says once that the host cannot be reached, and the engine stays pocketsphinx", async () => {
    await fresh();
    const { log, lines } = keptLog();
    // Port 1 on loopback refuses at once, as a machine without a route to the host does.
    const away = {
      ...config("https://127.0.0.1:1"),
      transcribe: { engine: "auto", auto_model: "base.en", model_host: "https://127.0.0.1:1" },
    };
    expect((await fetchAutoModel(away, log)).state).toBe("unreachable");
    expect((await fetchAutoModel(away, log)).state).toBe("unreachable");
    const said = lines.filter((l) => /could not reach/.test(String(l.msg)));
    expect(said).toHaveLength(1);
    expect(said[0]!.msg).toMatch(/npx clipd models pull base\.en/);
    expect(said[0]!.msg).toMatch(/roughly 30–50%.*roughly 5–10%/);
    expect(await resolveAuto({ data_dir: dataDir })).toEqual({ engine: "pocketsphinx" });
  });

  it("does nothing when auto_model is off or the site chose its engine", async () => {
    await fresh();
    const { log } = keptLog();
    const off = {
      ...config(server.origin),
      transcribe: { engine: "auto", auto_model: "off", model_host: server.origin },
    };
    expect((await fetchAutoModel(off, log, { ca: server.ca })).state).toBe("off");
    const chosen = {
      ...config(server.origin),
      transcribe: { engine: "pocketsphinx", auto_model: MODEL, model_host: server.origin },
    };
    expect((await fetchAutoModel(chosen, log, { ca: server.ca })).state).toBe("off");
    expect(ranges).toEqual([]);
  });
});
