/**
 * Images drawn once and kept in storage: the studio's waveforms, posters and style previews.
 *
 * A first request draws the image and writes it under its key (Storage.write goes through a
 * temporary name and a rename, so a reader never sees half a file); later requests read it back.
 * Two first requests for one key in this process share one drawing (the in-flight promise); two
 * processes may each draw it once, and the last whole file wins. At most `maxDrawing` drawings run
 * at once in a process (ffmpeg and sharp are CPU-heavy), the others wait their turn.
 */
import { createHash } from "node:crypto";
import type { Storage } from "../storage/storage.js";

export interface StoredImage {
  bytes: Buffer;
  type: string;
  /** A strong validator of the bytes, quoted as HTTP wants it. */
  etag: string;
  /** Whether this call drew the image (false: read from storage, or shared another's drawing). */
  drawn: boolean;
}

export class DrawOnce {
  private readonly inFlight = new Map<string, Promise<StoredImage>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Drawings made by this process, by key (tests count them). */
  readonly draws = new Map<string, number>();

  constructor(
    private readonly storage: Storage,
    private readonly maxDrawing = 2,
  ) {}

  /** The stored image under `key`, drawn by `draw` first when there is none. */
  async get(key: string, type: string, draw: () => Promise<Buffer>): Promise<StoredImage> {
    if (await this.storage.exists(key)) return image(await this.storage.read(key), type, false);
    const pending = this.inFlight.get(key);
    if (pending) return { ...(await pending), drawn: false };
    const made = this.make(key, type, draw).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, made);
    return made;
  }

  private async make(key: string, type: string, draw: () => Promise<Buffer>): Promise<StoredImage> {
    await this.turn();
    try {
      // Another process may have written it while this one waited its turn.
      if (await this.storage.exists(key)) return image(await this.storage.read(key), type, false);
      const bytes = await draw();
      await this.storage.write(key, bytes);
      this.draws.set(key, (this.draws.get(key) ?? 0) + 1);
      return image(bytes, type, true);
    } finally {
      this.release();
    }
  }

  private turn(): Promise<void> {
    if (this.running < this.maxDrawing) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next)
      next(); // the slot passes on without being counted down
    else this.running--;
  }
}

function image(bytes: Buffer, type: string, drawn: boolean): StoredImage {
  return { bytes, type, etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`, drawn };
}
