/**
 * Making an episode and starting its import (from a source_url, or once its upload is in), split
 * from episodes.ts so that the upload checks (size, media type) sit apart from the service's reads.
 * Each call checks the bill and starts the import run in the transaction that writes the episode
 * row, so a refused call leaves no row, no run and no charge behind (see episodes.ts, Guarantees).
 */
import { randomUUID } from "node:crypto";
import { extensionOf, sniffMedia, SNIFF_BYTES } from "../domain/media-types.js";
import { Conflict, LimitReached, Refused } from "../domain/errors.js";
import { transactionWith, type Queryable, type Within } from "../store/db.js";
import { lockEpisode, PIPELINES, type EpisodeDeps, type EpisodeRow } from "./episode-rows.js";
import type { AccountSurface } from "./surfaces.js";

/** Largest upload or download accepted for an episode, in bytes (4.5 GB, as the probe stage). */
export const MAX_EPISODE_BYTES = 4_831_838_208;

/** What making an episode tells its caller. */
export type NewEpisode = Pick<EpisodeRow, "id" | "status">;

/** Reads an episode as the service shows it (EpisodeService.get), passed in so this file needs no service. */
type ReadEpisode = (accountId: string, id: string, q: Queryable) => Promise<EpisodeRow | undefined>;

export class EpisodeImports {
  constructor(
    private readonly deps: EpisodeDeps,
    private readonly read: ReadEpisode,
  ) {}

  /** Makes an episode; with a source_url its import starts at once. Checks the bill first. */
  async create(
    input: {
      id?: string;
      accountId: string;
      name: string;
      sourceUrl?: string;
      upload?: { key: string; name: string };
      options: EpisodeRow["options"];
      /** The surface asking; recorded on the runs this starts. */
      origin: AccountSurface;
    },
    within?: Within<NewEpisode>,
  ): Promise<NewEpisode> {
    const id = input.id ?? randomUUID();
    return transactionWith(
      this.deps.db,
      async (tx) => {
        await this.deps.billing.assertCanStartEpisode(tx, input.accountId, input.origin);
        await tx.query(
          `insert into episodes (id, account_id, livemode, name, status, source_url, ` +
            `upload, options) values ($1, $2, true, $3, 'awaiting_upload', $4, $5, $6)`,
          [
            id,
            input.accountId,
            input.name,
            input.sourceUrl ?? null,
            input.upload ? JSON.stringify(input.upload) : null,
            JSON.stringify(input.options),
          ],
        );
        if (input.sourceUrl)
          await this.startImport(tx, id, input.accountId, input.origin, { source_url: input.sourceUrl });
        // Known without reading the row back: the account row stays locked for as short as can be.
        return { id, status: input.sourceUrl ? "importing" : "awaiting_upload" } as const;
      },
      within,
    );
  }

  /** Starts the import of an uploaded episode. A repeat once it has started changes nothing. */
  async markUploaded(
    accountId: string,
    id: string,
    origin: AccountSurface,
    within?: Within<{ episode: EpisodeRow; started: boolean }>,
  ): Promise<{ episode: EpisodeRow; started: boolean }> {
    const start = async (tx: Queryable): Promise<boolean> => {
      const ep = await lockEpisode(tx, accountId, id);
      if (ep.status !== "awaiting_upload") return false;
      if (!ep.upload)
        throw new Conflict("bad_state", `episode ${id} imports from its source_url; there is nothing to upload`);
      const size = (await this.deps.storage.exists(ep.upload.key)) ? await this.deps.storage.size(ep.upload.key) : 0;
      if (size === 0)
        throw new Conflict(
          "upload_missing",
          `no file was uploaded for episode ${id} yet; PUT it to the upload url first`,
        );
      // A presigned PUT straight to an object store was not measured on the way in: measure it now.
      if (size > MAX_EPISODE_BYTES) {
        await this.deps.storage.remove(ep.upload.key);
        throw new LimitReached(
          "size",
          "too_big",
          `the uploaded file is ${size} bytes, over the ${MAX_EPISODE_BYTES}-byte limit; upload a smaller file`,
          { context: { max_bytes: MAX_EPISODE_BYTES } },
        );
      }
      const upload = await this.typedUpload(ep.upload);
      await this.deps.billing.assertCanStartEpisode(tx, accountId, origin);
      if (upload !== ep.upload)
        await tx.query(`update episodes set upload = $2 where id = $1`, [id, JSON.stringify(upload)]);
      await this.startImport(tx, id, accountId, origin, { upload });
      return true;
    };
    return transactionWith(
      this.deps.db,
      async (tx) => {
        const started = await start(tx);
        return { episode: (await this.read(accountId, id, tx))!, started };
      },
      within,
    );
  }

  /**
   * An upload named without an extension gets one from its first bytes; bytes that are not audio
   * or video are refused (400 unsupported_type), and the episode keeps waiting for a media file.
   */
  private async typedUpload(upload: { key: string; name: string }): Promise<{ key: string; name: string }> {
    const sniff = sniffMedia(await this.deps.storage.readHead(upload.key, SNIFF_BYTES));
    // A named upload was sniffed as it came in through clipd; one PUT straight to an object store
    // was not, so a web page or text under a media name is refused here too.
    if (extensionOf(upload.name)) {
      if (sniff.kind === "html" || sniff.kind === "text") {
        throw new Refused(
          "unsupported_type",
          `the uploaded file is not audio or video (it looks like ${sniff.kind === "html" ? "a web page" : "text"}); ` +
            `PUT a media file to the upload url again`,
          { context: { detected: sniff.kind } },
        );
      }
      return upload;
    }
    if (sniff.kind !== "media") {
      const seen = sniff.kind === "html" ? "a web page" : sniff.kind === "text" ? "text" : "an unknown binary format";
      throw new Refused(
        "unsupported_type",
        `the uploaded file is not audio or video (it looks like ${seen}); PUT a media file to the upload url again`,
        { context: { detected: sniff.kind } },
      );
    }
    return { key: upload.key, name: `${upload.name}${sniff.ext}` };
  }

  private async startImport(
    tx: Queryable,
    id: string,
    accountId: string,
    origin: AccountSurface,
    source: Record<string, unknown>,
  ) {
    const run = await this.deps.runner.startRun(
      PIPELINES.import,
      { ...source, account_id: accountId, livemode: true, episode_id: id },
      { tx, origin, originRef: `episode:${id}` },
    );
    await tx.query(`update episodes set status = 'importing', run_id = $2, updated_at = now() where id = $1`, [
      id,
      run.id,
    ]);
  }
}
