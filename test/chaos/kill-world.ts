// One "world" of the kill -9 scenario: a data folder and database (PGlite or PostgreSQL), a real
// `clipd start` process from dist/ that is killed and restarted, and the outside it talks to (an
// https server on loopback that serves jfk.wav and receives signed webhooks). Work comes in by one
// path: the account API (POST /episodes with source_url, then maybe an export of clip 1) or the watch
// folder (a copy of jfk.wav dropped in the inbox).
import { copyFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Backend } from "../helpers/backends.js";
import { spawnClipd, type Spawned } from "../helpers/cli.js";
import { daemonEnv, OPS_TOKEN } from "../helpers/daemon-config.js";
import { serveFile } from "../helpers/https-server.js";
import { fixtureMedia } from "../helpers/media.js";
import { waitFor } from "../helpers/wait.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

export type WorkPath = "api" | "watch";

/** One piece of work: an API episode or a watch file. */
export interface Subject {
  n: number;
  /** Episode name (API) or file name in the inbox (watch). */
  name: string;
  /** The episode's id, once the POST was answered. */
  episodeId?: string;
  /** The export job's id, once started. */
  jobId?: string;
  /** API path: the file is uploaded (POST without source_url, a whole-file PUT, then /uploaded). */
  upload?: boolean;
  /** The upload address, once the POST was answered; and whether /uploaded was answered. */
  address?: { url: string; headers: Record<string, string> };
  uploaded?: boolean;
  /** The episode may end failed (its step was killed crash_limit times): checked as a failure. */
  mayFail?: boolean;
  /** API path: a free-API transcription with a callback instead of an episode (issue 27). */
  free?: boolean;
  freeId?: string;
  pollPath?: string;
}

/** Where a free subject's callback goes: a path of its own, whose first answer hangs (a kill lands in it). */
export const callbackPath = (s: Subject) => `/free-cb/${s.name}`;

export interface WorldOptions {
  /** Export clip 1 of every `exportEvery`-th episode once it is ready (API path; 0: none). */
  exportEvery?: number;
  /** An ops pipelines folder, replacing pipelines of the same name. */
  pipelinesDir?: string;
}

export class World {
  daemon?: Spawned;
  base = "";
  /** Output of every daemon process so far, for the "results written" lines and for reports. */
  private pastOutput = "";
  live = "";
  starts = 0;
  /** The crash points the running daemon was started with. */
  faults = "";

  private constructor(
    readonly backend: Backend,
    readonly path: WorkPath,
    readonly d: Awaited<ReturnType<typeof daemonEnv>>,
    readonly rx: Receiver,
    readonly opts: WorldOptions,
  ) {}

  static async open(backend: Backend, workPath: WorkPath, opts: WorldOptions = {}): Promise<World> {
    const rx = await startReceiver();
    rx.server.route("/media/jfk.wav", serveFile(fixtureMedia("jfk.wav"), "audio/wav"));
    const d = await daemonEnv(backend, {
      network: { allow_loopback: true, extra_ca: rx.server.caPath },
      // Retries soon, so a delivery whose attempt a kill cut short is sent again within the wait.
      webhooks: { time_scale: 0.02, timeout_ms: 3000 },
      free: { callback_time_scale: 0.02 },
      // One cheap clip render per watch file (the bench measures the queue, not ffmpeg).
      render: { render_top: 1 },
      watch:
        workPath === "watch"
          ? { enabled: true, stable_ms: 300, folders: [{ path: "inbox", pipeline: "episode" }] }
          : { enabled: false },
      api: { rate_limit: { requests: 1_000_000, window_seconds: 60 } },
      ...(opts.pipelinesDir ? { pipelines: { ops_dir: opts.pipelinesDir } } : {}),
    });
    const w = new World(backend, workPath, d, rx, opts);
    if (workPath === "watch") await mkdir(w.inbox, { recursive: true });
    return w;
  }

  get dataDir(): string {
    return this.d.dataDir;
  }
  get inbox(): string {
    return path.join(this.d.dataDir, "inbox");
  }

  output(): string {
    return this.pastOutput + (this.daemon?.output() ?? "");
  }

  /** Starts the daemon (with crash points, when given) and waits for it to serve. */
  async start(faults?: string): Promise<Spawned> {
    if (this.daemon) this.pastOutput += this.daemon.output();
    const p = spawnClipd(["start"], { ...this.d.env, CLIPD_FAULTS: faults ?? "" });
    this.daemon = p;
    this.faults = faults ?? "";
    this.starts++;
    this.base = (await p.waitFor(/is up: (http:\/\/[\d.:]+)/, 120_000))[1]!;
    return p;
  }

  /** True while the daemon process is alive. */
  alive(): boolean {
    const c = this.daemon?.child;
    return !!c && c.exitCode === null && c.signalCode === null;
  }

  async kill(): Promise<void> {
    if (!this.daemon) return;
    this.daemon.kill("SIGKILL");
    await this.daemon.exited;
  }

  async stop(): Promise<void> {
    if (!this.alive()) return;
    this.daemon!.kill("SIGTERM");
    await this.daemon!.exited;
  }

  async call(
    key: string,
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.base}${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  }

  /** API path: an account with credit (every episode is charged from it), a live key and a webhook. */
  async setUpAccount(): Promise<void> {
    const acc = await this.call(OPS_TOKEN, "POST", "/api/v1/admin", {
      command: "account.create",
      args: { email: `kill-${this.backend}@example.com`, credit_cents: 10_000_000 },
    });
    const key = await this.call(OPS_TOKEN, "POST", "/api/v1/admin", {
      command: "key.create",
      args: { account: acc.body.account_id, mode: "live", scopes: "clips.read,clips.write,webhooks" },
    });
    this.live = String(key.body.key);
    const hook = await this.call(this.live, "POST", "/api/v1/webhooks", {
      url: this.rx.path("/hook"),
      events: ["episode.ready", "episode.failed", "clip.ready", "clip.failed"],
    });
    if (hook.status !== 201)
      throw new Error(`could not register the webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    this.rx.secret("/hook", hook.body.secret);
  }

  /**
   * Hands the work in. API: POST /episodes with an Idempotency-Key, so a request cut by a kill is
   * sent again as the same request (a client's retry). Watch: the file is copied beside the inbox
   * and renamed in, so the daemon never sees half a file.
   */
  async submit(s: Subject): Promise<boolean> {
    if (this.path === "watch") {
      // The sidecar first (the file is taken with it), asking for a small, fast render.
      await writeFile(path.join(this.inbox, s.name.replace(/\.[^.]+$/, ".yaml")), "width: 360\npreset: ultrafast\n");
      const tmp = path.join(this.d.dataDir, `.${s.name}`);
      await copyFile(fixtureMedia("jfk.wav"), tmp);
      await rename(tmp, path.join(this.inbox, s.name));
      return true;
    }
    try {
      if (s.free) return await this.submitFree(s);
      const r = await this.call(
        this.live,
        "POST",
        "/api/v1/episodes",
        s.upload
          ? { name: s.name, file_name: "jfk.wav" }
          : { name: s.name, source_url: this.rx.server.url("/media/jfk.wav") },
        { "idempotency-key": `kill-${s.name}` },
      );
      if (r.status !== 202) throw new Error(`POST /episodes answered ${r.status}: ${JSON.stringify(r.body)}`);
      s.episodeId = r.body.episode_id;
      s.address = r.body.upload;
      if (s.upload && !s.uploaded) await this.putWhole(s);
      return true;
    } catch (err) {
      // A daemon that died under the request (a crash point) is seen exiting a moment after the
      // connection broke: wait for that before calling the failure the server's.
      const died = await waitFor(() => !this.alive(), { timeoutMs: 10_000, intervalMs: 20 }).catch(() => false);
      if (!died) throw err;
      return false; // sent again after the restart
    }
  }

  /**
   * The whole file in one PUT, its bytes trickled in 8 pieces 150 ms apart (about a second, for a
   * kill to land in), then /uploaded. The address is the replayed answer's, on this daemon's port
   * (a restarted daemon listens on another). A PUT after /uploaded is 409 upload_closed: done.
   */
  private async putWhole(s: Subject): Promise<void> {
    const file = await readFile(fixtureMedia("jfk.wav"));
    const url = `${this.base}${new URL(s.address!.url).pathname}`;
    const size = Math.ceil(file.length / 8);
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        for (let i = 0; i < 8; i++) {
          c.enqueue(file.subarray(i * size, (i + 1) * size));
          await new Promise((r) => setTimeout(r, 150));
        }
        c.close();
      },
    });
    const put = await fetch(url, { method: "PUT", headers: s.address!.headers, body, duplex: "half" } as RequestInit);
    const answer = await put.text();
    if (put.status !== 200 && !(put.status === 409 && answer.includes("upload_closed")))
      throw new Error(`PUT of ${s.name} answered ${put.status}: ${answer}`);
    const done = await this.call(
      this.live,
      "POST",
      `/api/v1/episodes/${s.episodeId}/uploaded`,
      {},
      {
        "idempotency-key": `kill-uploaded-${s.name}`,
      },
    );
    if (done.status !== 200) throw new Error(`/uploaded of ${s.name} answered ${done.status}`);
    s.uploaded = true;
  }

  /** A free transcription of jfk.wav (no key) with a callback to the subject's own receiver path. */
  private async submitFree(s: Subject): Promise<boolean> {
    const cb = this.rx.path(callbackPath(s), ["hang", 200]);
    const res = await fetch(`${this.base}/api/v1/transcribe`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: this.rx.server.url("/media/jfk.wav"), callback_url: cb }),
    });
    const body = (await res.json()) as { id: string; poll_url: string; callback_secret: string };
    if (res.status !== 202) throw new Error(`POST /transcribe answered ${res.status}: ${JSON.stringify(body)}`);
    s.freeId = body.id;
    s.pollPath = new URL(body.poll_url, this.base).pathname + new URL(body.poll_url, this.base).search;
    this.rx.secret(callbackPath(s), body.callback_secret);
    return true;
  }

  /** How many times the daemons so far started the stand-in's sleep step (from their log lines). */
  sleepStarts(): number {
    return (this.output().match(/"stage":"sleep"[^\n]*"msg":"step started"/g) ?? []).length;
  }

  /** True once the subject's work is over (and its webhooks acknowledged), moving it on where needed. */
  async finished(s: Subject): Promise<boolean> {
    if (this.path === "watch") return new RegExp(`"file":"${s.name}"[^\\n]*results written`).test(this.output());
    if (s.free) {
      if (!s.freeId && !(await this.submit(s))) return false;
      const job = (await (await fetch(`${this.base}${s.pollPath}`)).json()) as { status?: string };
      if (job.status !== "completed" && job.status !== "failed") return false;
      return this.rx.receipts.some((r) => r.path === callbackPath(s) && r.answered === 200);
    }
    if ((!s.episodeId || (s.upload && !s.uploaded)) && !(await this.submit(s))) return false;
    const ep = await this.call(this.live, "GET", `/api/v1/episodes/${s.episodeId}`);
    if (ep.body?.status === "failed") {
      if (!s.mayFail) return true;
      // A failure the scenario allows must be delivered too: episode.failed acknowledged.
      return this.rx.receipts.some(
        (r) =>
          r.answered === 200 &&
          (JSON.parse(r.body) as { type: string; data: { episode_id?: string } }).type === "episode.failed" &&
          (JSON.parse(r.body) as { data: { episode_id?: string } }).data.episode_id === s.episodeId,
      );
    }
    if (ep.body?.status !== "ready") return false;
    if (this.opts.exportEvery && s.n % this.opts.exportEvery === 0 && !s.jobId) {
      const r = await this.call(
        this.live,
        "POST",
        `/api/v1/episodes/${s.episodeId}/clips`,
        { clips: [1] },
        { "idempotency-key": `kill-export-${s.name}` },
      );
      if (r.status !== 202) throw new Error(`export of ${s.name} answered ${r.status}: ${JSON.stringify(r.body)}`);
      s.jobId = r.body.jobs[0]?.job_id;
    }
    if (s.jobId) {
      const job = await this.call(this.live, "GET", `/api/v1/jobs/${s.jobId}`);
      if (job.body?.status !== "completed" && job.body?.status !== "failed") return false;
    }
    // Every event about this episode acknowledged at least once.
    const want = ["episode.ready", ...(s.jobId ? ["clip.ready"] : [])];
    const acked = this.rx.receipts
      .filter((r) => r.answered === 200)
      .map((r) => JSON.parse(r.body) as { type: string; data: { episode_id?: string } });
    return want.every((t) => acked.some((e) => e.type === t && e.data.episode_id === s.episodeId));
  }

  /** Waits for the subject, restarting the daemon if it is not running. */
  async waitFinished(s: Subject, timeoutMs = 240_000): Promise<void> {
    if (!this.alive()) await this.start();
    // A daemon that exits on its own while the work is awaited is a crash to report at once, not a
    // wait to sit out until the timeout.
    await waitFor(async () => !this.alive() || (await this.finished(s)), {
      what: `${this.path} ${s.name} to finish on ${this.backend}`,
      timeoutMs,
      intervalMs: 250,
    });
    const c = this.daemon?.child;
    if (!this.alive())
      throw new Error(
        `the daemon exited by itself (${c?.signalCode ?? c?.exitCode}) while ${s.name} was awaited; ` +
          `its output ends: ${this.daemon?.output().slice(-1500)}`,
      );
  }

  /** Stops everything; `clean` also removes the data folder. */
  async close(clean = false): Promise<void> {
    if (this.alive()) {
      this.daemon!.kill("SIGKILL");
      await this.daemon!.exited;
    }
    await this.rx.close();
    if (clean) await rm(this.d.dataDir, { recursive: true, force: true });
  }
}
