// A FAKE OpenAI-compatible server on loopback, for tests only: the paid API can't run here.
// - POST /v1/audio/transcriptions answers a fixed verbose_json body (two words per upload), or
//   for response_format diarized_json two segments by speakers A and B.
// - POST /v1/chat/completions answers the JSON the test configured (`chat.answer`) as the
//   assistant's message content, or fails `chat.failFirst` times with `chat.failStatus`.
//   With `speech`, it instead "hears" words from a script at a steady rate over the whole
//   upload (its length read by ffprobe), in the language given: long or foreign-language results.
// It records what each request carried, so tests can check fields, chunking and retries.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export interface FakeRequest {
  auth?: string;
  fields: Record<string, string[]>;
  fileBytes: number;
  fileName?: string;
}

export interface FakeChatRequest {
  auth?: string;
  body: any;
}

export interface FakeChatOptions {
  /** The assistant's content: a value (sent as JSON text), a string (sent as is), or built from the request body. */
  answer?: unknown | ((body: any) => unknown);
  /** Fail this many chat requests first (default 0); -1 fails them all. */
  failFirst?: number;
  failStatus?: number;
}

export interface FakeSpeechOptions {
  /** Words "heard" per second of upload. */
  wordsPerSecond: number;
  /** Words cycled through; a sentence ends at every tenth word. */
  script: string[];
  /** The verbose_json `language` (a name, as OpenAI reports it). Default "english". */
  language?: string;
}

export interface FakeOpenAI {
  baseURL: string;
  requests: FakeRequest[];
  chatRequests: FakeChatRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

/** Splits a multipart/form-data body into text fields and the size of the file part. */
function parseMultipart(body: Buffer, contentType: string): Omit<FakeRequest, "auth"> & { file?: Buffer } {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  const fields: Record<string, string[]> = {};
  let fileBytes = 0;
  let fileName: string | undefined;
  let file: Buffer | undefined;
  if (!boundary) return { fields, fileBytes };
  const raw = body.toString("latin1");
  for (const part of raw.split(`--${boundary}`)) {
    const headEnd = part.indexOf("\r\n\r\n");
    if (headEnd < 0) continue;
    const head = part.slice(0, headEnd);
    const content = part.slice(headEnd + 4).replace(/\r\n$/, "");
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (!name) continue;
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (filename !== undefined) {
      file = Buffer.from(content, "latin1");
      fileBytes = file.length;
      fileName = filename;
    } else {
      (fields[name] ??= []).push(content);
    }
  }
  return { fields, fileBytes, fileName, file };
}

/** The length of an uploaded audio file, by ffprobe. */
async function uploadSeconds(file: Buffer, name = "upload.mp3"): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-fake-openai-"));
  try {
    const p = path.join(dir, path.basename(name));
    await writeFile(p, file);
    const { stdout } = await promisify(execFile)("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "format=duration",
      "-of",
      "csv=p=0",
      p,
    ]);
    return Number(stdout.trim());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A verbose_json body with words from the script at the given rate over `seconds`. */
function spoken(speech: FakeSpeechOptions, seconds: number) {
  const step = 1 / speech.wordsPerSecond;
  const words: Array<{ word: string; start: number; end: number }> = [];
  for (let i = 0, t = 0.2; t + step <= seconds; i++, t += step) {
    const w = speech.script[i % speech.script.length]!;
    words.push({ word: i % 10 === 9 ? `${w}.` : w, start: +t.toFixed(3), end: +(t + step * 0.8).toFixed(3) });
  }
  const segments = [];
  for (let i = 0; i < words.length; i += 10) {
    const part = words.slice(i, i + 10);
    segments.push({
      id: segments.length,
      start: part[0]!.start,
      end: part.at(-1)!.end,
      text: " " + part.map((w) => w.word).join(" "),
      avg_logprob: -0.2,
      no_speech_prob: 0.01,
      compression_ratio: 1,
    });
  }
  return {
    task: "transcribe",
    language: speech.language ?? "english",
    duration: seconds,
    text: segments.map((s) => s.text).join(""),
    words,
    segments,
  };
}

export async function startFakeOpenAI(
  opts: { failFirst?: number; failStatus?: number; chat?: FakeChatOptions; speech?: FakeSpeechOptions } = {},
): Promise<FakeOpenAI> {
  const requests: FakeRequest[] = [];
  const chatRequests: FakeChatRequest[] = [];
  let failures = opts.failFirst ?? 0;
  let chatFailures = opts.chat?.failFirst ?? 0;
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.method === "POST" && req.url?.endsWith("/chat/completions")) {
      let parsed: any;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "body is not JSON" } }));
        return;
      }
      chatRequests.push({ auth: req.headers.authorization, body: parsed });
      if (chatFailures !== 0) {
        if (chatFailures > 0) chatFailures--;
        const status = opts.chat?.failStatus ?? 500;
        res
          .writeHead(status, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: `fake failure ${status}` } }));
        return;
      }
      const a = opts.chat?.answer;
      const value = typeof a === "function" ? (a as (b: any) => unknown)(parsed) : (a ?? { clips: [] });
      const content = typeof value === "string" ? value : JSON.stringify(value);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-fake-${chatRequests.length}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: parsed.model,
          choices: [
            { index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop", logprobs: null },
          ],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        }),
      );
      return;
    }
    if (req.method !== "POST" || !req.url?.endsWith("/audio/transcriptions")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const { file, ...parsed } = parseMultipart(body, req.headers["content-type"] ?? "");
    requests.push({ auth: req.headers.authorization, ...parsed });
    if (failures > 0) {
      failures--;
      const status = opts.failStatus ?? 500;
      res
        .writeHead(status, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `fake failure ${status}` } }));
      return;
    }
    if (opts.speech && file) {
      const seconds = await uploadSeconds(file, parsed.fileName);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(spoken(opts.speech, seconds)));
      return;
    }
    if (parsed.fields.response_format?.[0] === "diarized_json") {
      // The diarizing model's shape: speaker-labelled segments, no word times.
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          task: "transcribe",
          duration: 4,
          text: "So what happened? The roof fell in.",
          segments: [
            {
              type: "transcript.text.segment",
              id: "seg_0",
              start: 0.3,
              end: 1.6,
              text: "So what happened?",
              speaker: "A",
            },
            {
              type: "transcript.text.segment",
              id: "seg_1",
              start: 1.9,
              end: 3.7,
              text: "The roof fell in.",
              speaker: "B",
            },
          ],
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        task: "transcribe",
        language: "english",
        duration: 2,
        text: "Hello world.",
        words: [
          { word: "Hello", start: 0.5, end: 0.9 },
          { word: "world.", start: 1.0, end: 1.4 },
        ],
        segments: [
          {
            id: 0,
            start: 0.4,
            end: 1.5,
            text: " Hello world.",
            avg_logprob: -0.1,
            no_speech_prob: 0.01,
            compression_ratio: 1,
          },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
