/**
 * The daemon's roles: serve (the HTTP facade), work (pipeline steps) and watch (the watch folder).
 * `start` runs all three in one process. Shutdown is graceful: on SIGTERM or SIGINT no new work is
 * taken, running steps get `queue.shutdown_grace_seconds` to finish, and whatever is still running
 * then is handed back to the queue, which runs it again on the next worker (no retry spent).
 */
import { Drain } from "../ops/drain.js";
import { metrics } from "../ops/metrics.js";
import { toNodeHandler } from "h3/node";
import { listenHttp, type HttpListener } from "./http-listen.js";
import { guardRequests } from "../ops/request-guard.js";
import { createFacade } from "../../facade/app.js";
import type { ClipdApp } from "./app.js";
import { fetchAutoModel } from "../../plugins/transcribe/engines/auto-model.js";
import { WatchFolder } from "../watch/folder.js";
import { OAuthService } from "../oauth/service.js";
import { RateLimiter } from "../../facade/ratelimit.js";
import { LinkSigner } from "../../facade/signing.js";
import { downloadLink } from "../../facade/uploads.js";
import { resultsLink } from "../../facade/operations/web-studio-results.js";
import { ensureOpsToken } from "../ops/ops-token.js";
import os from "node:os";
import { configureEncoder } from "../render/encoder.js";
import { defaultRenderConcurrency, setRenderConcurrency } from "../render/encode-slots.js";
import { startUploadSweeper } from "../../facade/upload-sweeper.js";
import { applyRequestTimeouts } from "../../facade/request-timeouts.js";
import { AccountRemoval } from "../web/removal.js";
import { StudioService } from "../studio/service.js";

export type Role = "serve" | "work" | "watch";

export interface RunningRoles {
  url?: string;
  stop(reason?: string): Promise<void>;
}

export async function serveRole(
  app: ClipdApp,
  drain: Drain = new Drain(),
): Promise<{ listener: HttpListener; rates: RateLimiter }> {
  const rl = app.config.api.rate_limit;
  const rates = new RateLimiter(app.db, { limit: rl.requests, windowSeconds: rl.window_seconds });
  rates.start();
  const signer = await LinkSigner.create(app.db, app.config.server.signing_secret || undefined);
  app.free.setLinker((file, at) => downloadLink({ config: app.config, signer }, { ...file, origin: at }));
  // The ops routes always need a token; without a configured one, the data folder's (ops/ops-token.ts).
  const ops = await ensureOpsToken(app.config);
  if (ops.file)
    app.log.info(
      { file: ops.file, made: ops.made },
      "ops routes take the token in this file (server.ops_token is not set)",
    );
  const config = ops.file ? { ...app.config, server: { ...app.config.server, ops_token: ops.token } } : app.config;
  const h3 = createFacade({
    config,
    db: app.db,
    queue: app.queue,
    runner: app.runner,
    workers: app.workers,
    accounts: app.accounts,
    billing: app.billing,
    episodes: app.episodes,
    webhooks: app.webhooks,
    transcripts: app.transcripts,
    free: app.free,
    payments: app.payments,
    rates,
    signer,
    storage: app.storage,
    web: app.web,
    studio: app.container.resolve(StudioService),
    oauth: app.container.resolve(OAuthService),
    drain,
    log: app.log.child({ role: "serve" }),
    version: app.version,
  });
  const port = app.config.server.port;
  // No request, however it breaks, may end the process (daemon/ops/request-guard.ts).
  guardRequests(app.log.child({ role: "serve" }));
  const listener = await listenHttp(toNodeHandler(h3), { port, host: app.config.server.host });
  // Uploads are bounded by idleness and size, other requests by time (facade/request-timeouts.ts).
  applyRequestTimeouts(listener.server, {
    uploadIdleSeconds: app.config.server.upload_idle_seconds,
    requestBodySeconds: app.config.server.request_body_seconds,
  });
  return { listener, rates };
}

export async function startRoles(app: ClipdApp, roles: Role[]): Promise<RunningRoles> {
  const drain = new Drain();
  let listener: HttpListener | undefined;
  let rates: RateLimiter | undefined;
  let watcher: WatchFolder | undefined;
  let sweeper: { stop(): void } | undefined;
  // Links in webhook events (download_url, transcript files) point at this server, or at
  // server.public_url when it is set.
  let origin = `http://127.0.0.1:${app.config.server.port}`;
  if (roles.includes("work")) {
    const signer = await LinkSigner.create(app.db, app.config.server.signing_secret || undefined);
    // A transcript's page is the site's results page (/r/<token>) where the site is served.
    const links = { config: app.config, signer };
    app.webhooks.setLinker((file) =>
      file.results && app.config.web.enabled
        ? resultsLink(links, { ...file.results, origin })
        : downloadLink(links, { ...file, origin }),
    );
    // The render encoder is resolved before the first step (an unusable explicit one stops the worker here).
    const encodes = app.config.render.concurrency ?? defaultRenderConcurrency(os.availableParallelism());
    setRenderConcurrency(encodes);
    app.log.info(
      { ...(await configureEncoder(app.config.render.encoder)), encodes_at_once: encodes },
      "render encoder",
    );
    // Steps, their dead letters and the sweep for runs the queue lost (daemon/engine/runner.ts).
    await app.runner.work();
    await app.webhooks.work();
    await app.free.work();
    await app.container.resolve(AccountRemoval).work();
    await app.workers.join(roles, app.config.queue.concurrency, () => app.queue.activeLocal());
    app.log.info({ concurrency: app.config.queue.concurrency, db: app.db.kind }, "worker ready");
    // Whisper where it can be had: the model is fetched beside the work, never before it (issue 29).
    void fetchAutoModel(app.config, app.log);
  }
  if (roles.includes("watch") && app.config.watch.enabled) {
    watcher = new WatchFolder(app);
    await watcher.start();
  }
  if (roles.includes("serve")) {
    ({ listener, rates } = await serveRole(app, drain));
    // Queue depths come from pg-boss at scrape time; any process with the database can tell them.
    metrics.setQueueSource(() => app.queue.depths());
    // Partial uploads left by a crash (facade/upload-sweeper.ts).
    sweeper = startUploadSweeper(app.storage, app.log.child({ role: "serve" }));
    const port = listener.address.port;
    origin = `http://127.0.0.1:${port}`;
    app.log.info({ url: `http://localhost:${port}`, port }, "facade listening");
  }
  let stopping: Promise<void> | undefined;
  return {
    url: listener ? `http://127.0.0.1:${listener.address.port}` : undefined,
    stop(reason = "stop") {
      stopping ??= (async () => {
        const grace = app.config.queue.shutdown_grace_seconds;
        // /readyz answers 503 from here on, while running steps finish and the listener still answers.
        drain.begin();
        app.log.info({ reason, grace_seconds: grace }, "shutting down");
        await watcher?.stop();
        if (roles.includes("work")) {
          await app.queue.stopWorking();
          app.runner.stopSweeping();
          const deadline = Date.now() + grace * 1000;
          while (app.queue.activeLocal() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
          if (app.queue.activeLocal() > 0) {
            app.log.warn(
              { active: app.queue.activeLocal() },
              "grace period over; abandoning running steps to be retried",
            );
            app.runner.abortAll();
            // Each aborted step hands itself back to the queue (engine/step-handler.ts); let it write that.
            const handBack = Date.now() + 5000;
            while (app.queue.activeLocal() > 0 && Date.now() < handBack) await new Promise((r) => setTimeout(r, 50));
          }
        }
        // Behind a load balancer, keep answering (503 on /readyz) until it has seen the drain.
        const hold = listener ? app.config.server.drain_seconds * 1000 - (Date.now() - drain.since()!.getTime()) : 0;
        if (hold > 0) await new Promise((r) => setTimeout(r, hold));
        await listener?.close().catch(() => {});
        await rates?.stop();
        sweeper?.stop();
        await app.close({ graceSeconds: 1 });
        app.log.info("stopped");
      })();
      return stopping;
    },
  };
}
