/** What the facade is given by the daemon. The facade reaches the daemon only through these. */
import type { Logger } from "pino";
import type { Config } from "../config/loader.js";
import type { QueueManager } from "../daemon/engine/queue.js";
import type { Runner } from "../daemon/engine/runner.js";
import type { Db } from "../daemon/store/db.js";
import type { WorkerBoard } from "../daemon/engine/workers.js";
import type { AccountService } from "../daemon/account/accounts.js";
import type { BillingService } from "../daemon/account/billing.js";
import type { EpisodeService } from "../daemon/account/episodes.js";
import type { WebhookService } from "../daemon/account/webhooks.js";
import type { TranscriptService } from "../daemon/account/transcripts.js";
import type { FreeService } from "../daemon/free/service.js";
import type { PaymentService } from "../daemon/payments/service.js";
import type { RateLimiter } from "./ratelimit.js";
import type { LinkSigner } from "./signing.js";
import type { Storage } from "../daemon/storage/storage.js";
import type { WebService } from "../daemon/web/service.js";
import type { StudioService } from "../daemon/studio/service.js";
import type { OAuthService } from "../daemon/oauth/service.js";
import type { Drain } from "../daemon/ops/drain.js";

export interface FacadeServices {
  config: Config;
  db: Db;
  queue: QueueManager;
  runner: Runner;
  workers: WorkerBoard;
  accounts: AccountService;
  billing: BillingService;
  episodes: EpisodeService;
  webhooks: WebhookService;
  transcripts: TranscriptService;
  free: FreeService;
  payments: PaymentService;
  rates: RateLimiter;
  signer: LinkSigner;
  storage: Storage;
  /** The website's sessions, sign-in and account recovery (daemon/web/). */
  web: WebService;
  /** The episode studio's media, transcript lines and drawn images, and results pages (daemon/studio/). */
  studio: StudioService;
  /** OAuth 2.1 for the MCP tool server's remote connectors (daemon/oauth/). */
  oauth: OAuthService;
  /** Set when the running roles begin to shut down; `/readyz` then answers 503 (absent: never draining). */
  drain?: Pick<Drain, "since">;
  log: Logger;
  version: string;
}
