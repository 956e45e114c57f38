/**
 * Test mode: what svc_test_ keys get instead of real work. The sample episode, its clips, its jobs
 * and a transcript come from config/testmode.yaml and are the same on every call; every answer
 * says `livemode: false`. Nothing is uploaded, rendered or charged: handlers answer a test key
 * from here before touching billing, storage uploads or the runner.
 *
 * The sample transcript's files (txt, srt, vtt and a page) are written once under `testmode/` in
 * storage from the same fixture, so its download links work like live ones.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { formatDuration } from "./_format.js";
import { projectRoot } from "../config/loader.js";
import { transcriptPage } from "../daemon/account/transcripts.js";
import type { FacadeServices } from "./services.js";
import { downloadLink, type DownloadLink } from "./uploads.js";

interface FixtureSegment {
  start: number;
  end: number;
  speaker: string;
  text: string;
}

export interface TestFixtures {
  episode: {
    episode_id: string;
    name: string;
    content_type: string;
    status: string;
    duration_seconds: number;
    created_at: string;
  };
  clips: Array<{
    clip_id: string;
    number: number;
    title: string;
    hook_title: string | null;
    start_seconds: number;
    end_seconds: number;
    score: number;
    style: string;
    cut_status: string;
    export_status: string;
    job_id?: string;
    /** On the clip's own timeline (seconds from the clip's start). */
    captions?: FixtureSegment[];
  }>;
  jobs: Array<{
    job_id: string;
    kind: "cut" | "render";
    status: string;
    clip_id: string;
    progress: number;
    file_name: string;
  }>;
  transcript: {
    id: string;
    name: string;
    url: string;
    language: string;
    duration_seconds: number;
    created_at: string;
    segments: FixtureSegment[];
  };
}

/** A test upload address checks and discards what is sent; it takes files up to this size (100 MB). */
export const TEST_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const cache = new Map<string, TestFixtures>();

/** Reads and checks config/testmode.yaml (cached). */
export function loadTestFixtures(file = path.join(projectRoot(), "config", "testmode.yaml")): TestFixtures {
  const hit = cache.get(file);
  if (hit) return hit;
  const doc = parse(readFileSync(file, "utf8")) as TestFixtures;
  const fail = (what: string) => {
    throw new Error(`${file}: ${what}`);
  };
  if (!doc?.episode || !Array.isArray(doc.clips) || !Array.isArray(doc.jobs) || !doc.transcript)
    fail("needs episode, clips, jobs and transcript");
  const ids = [
    doc.episode.episode_id,
    doc.transcript.id,
    ...doc.clips.map((c) => c.clip_id),
    ...doc.jobs.map((j) => j.job_id),
  ];
  for (const id of ids) if (!UUID.test(String(id))) fail(`"${id}" is not a uuid`);
  for (const c of doc.clips)
    if (c.job_id && !doc.jobs.some((j) => j.job_id === c.job_id))
      fail(`clip ${c.clip_id} names job ${c.job_id}, which is not listed`);
  for (const j of doc.jobs)
    if (!doc.clips.some((c) => c.clip_id === j.clip_id))
      fail(`job ${j.job_id} names clip ${j.clip_id}, which is not listed`);
  if (!Array.isArray(doc.transcript.segments) || !doc.transcript.segments.length)
    fail("transcript.segments must list the sample's text");
  cache.set(file, doc);
  return doc;
}

export const sampleIds = () => {
  const f = loadTestFixtures();
  return {
    episode: f.episode.episode_id,
    transcript: f.transcript.id,
    clips: f.clips.map((c) => c.clip_id),
    jobs: f.jobs.map((j) => j.job_id),
  };
};

const stamp = (t: number, sep: "," | ".") => {
  const ms = Math.round(t * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const hms = [Math.floor(ms / 3_600_000), Math.floor(ms / 60_000) % 60, Math.floor(ms / 1000) % 60];
  return `${hms.map((n) => p(n)).join(":")}${sep}${p(ms % 1000, 3)}`;
};

/** The sample transcript's files, made from the fixture's segments. */
export function sampleTranscriptFiles(): { txt: string; srt: string; vtt: string } {
  const segs = loadTestFixtures().transcript.segments;
  return {
    txt: segs.map((s) => s.text).join("\n\n") + "\n",
    srt: segs.map((s, i) => `${i + 1}\n${stamp(s.start, ",")} --> ${stamp(s.end, ",")}\n${s.text}\n`).join("\n"),
    vtt: "WEBVTT\n\n" + segs.map((s) => `${stamp(s.start, ".")} --> ${stamp(s.end, ".")}\n${s.text}\n`).join("\n"),
  };
}

export interface SampleLinks {
  services: Pick<FacadeServices, "config" | "signer" | "storage">;
  origin?: string;
}

export type SampleDownloads = Record<"page" | "txt" | "srt" | "vtt", string>;

/**
 * The sample transcript, completed. With `links`, its files are put in storage (once) and
 * `downloads` carries signed links to them; without, `downloads` is null.
 */
export async function sampleTranscript(links?: SampleLinks) {
  const t = loadTestFixtures().transcript;
  const files = sampleTranscriptFiles();
  let downloads: SampleDownloads | null = null;
  if (links) {
    const { storage } = links.services;
    const bodies = { ...files, page: transcriptPage(t.name, files.txt) };
    const ext = { txt: "txt", srt: "srt", vtt: "vtt", page: "html" } as const;
    const out: Partial<SampleDownloads> = {};
    for (const kind of ["page", "txt", "srt", "vtt"] as const) {
      const key = `testmode/transcript.${ext[kind]}`;
      if (!(await storage.exists(key))) await storage.write(key, bodies[kind]);
      const link: DownloadLink = downloadLink(links.services, {
        key,
        name: `sample-transcript.${ext[kind]}`,
        origin: links.origin,
      });
      out[kind] = link.url;
    }
    downloads = out as SampleDownloads;
  }
  const text = t.segments.map((s) => s.text).join(" ");
  return {
    id: t.id,
    status: "completed" as const,
    name: t.name,
    url: t.url,
    text,
    language: t.language,
    duration: formatDuration(t.duration_seconds),
    duration_seconds: t.duration_seconds,
    word_count: text.split(/\s+/).filter(Boolean).length,
    progress: 100,
    charged_cents: 0,
    downloads,
    created_at: t.created_at,
    completed_at: t.created_at,
    livemode: false as const,
  };
}

/**
 * A signed link to the sample clip (config/samples/sample-clip.mp4, shipped, never rendered),
 * offered under the sample job's file name. The file is put in storage once, like the transcript's.
 */
/**
 * When the sample clip's download link expires: a fixed moment, not 7 days from the read, because
 * test mode promises the same sample answers every time (issue 27). The link only ever reaches the
 * shipped sample clip, so a long life costs nothing.
 */
export const SAMPLE_LINK_EXPIRES = new Date("2099-12-31T23:59:59Z");

export async function sampleClipLink(links: SampleLinks, fileName: string): Promise<DownloadLink> {
  const key = "testmode/sample-clip.mp4";
  if (!(await links.services.storage.exists(key))) {
    await links.services.storage.write(
      key,
      await readFile(path.join(projectRoot(), "config", "samples", "sample-clip.mp4")),
    );
  }
  // A fixed expiry, so every read of a sample job answers the same link and download_expires_at.
  return downloadLink(links.services, {
    key,
    name: fileName,
    type: "video/mp4",
    origin: links.origin,
    until: SAMPLE_LINK_EXPIRES,
  });
}
