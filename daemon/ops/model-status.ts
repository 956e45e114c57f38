/**
 * How the background fetch of the whisper model stands in this process (issue 29, item 9), for
 * `/healthz`: the fetch (plugins/transcribe/engines/auto-model.ts) writes it, the health check reads
 * it. Null until a worker has looked.
 */
export interface ModelStatus {
  /** The model fetched, e.g. base.en. */
  model: string;
  /**
   * off: transcribe.auto_model is off, or the site chose its engine; installed: a real model was
   * there; downloading; ready: fetched and checked this run; unreachable: the host could not be
   * reached (pocketsphinx stays); failed: the download broke off or failed its checksum.
   */
  state: "off" | "installed" | "downloading" | "ready" | "unreachable" | "failed";
  bytes?: number;
  total?: number;
  error?: string;
}

let current: ModelStatus | null = null;

export const modelStatus = (): ModelStatus | null => current;
export function setModelStatus(s: ModelStatus | null): void {
  current = s;
}
