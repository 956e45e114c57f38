/** The uploader as a React hook: one UploadRun at a time, its state as component state. */
import { useCallback, useEffect, useRef, useState } from "react";
import { IDLE, UploadRun, type UploadPhase, type UploadState, type UploadTarget } from "./engine";

export interface UploadOptions {
  /** Called once when the last byte is accepted (after start or a later resume), with the server's answer. */
  onComplete?: (answer: unknown) => void;
  /** Piece size in bytes (tests use small ones); CHUNK_BYTES by default. */
  chunkBytes?: number;
}

export interface UploadHandle {
  state: UploadState;
  /** True while bytes are going or an automatic retry is waiting. */
  busy: boolean;
  /** Sends `file` to `target` from the start; resolves with how this go ended. */
  start(file: Blob, target: UploadTarget): Promise<UploadPhase>;
  /** Goes on after a cancel or pause from the bytes the address holds. */
  resume(): Promise<UploadPhase>;
  /** Sends `file` to `target` from the bytes the address already holds (a page reloaded mid-upload). */
  resumeInto(file: Blob, target: UploadTarget): Promise<UploadPhase>;
  /** Stops sending; resume() can go on while the link lasts. */
  cancel(): void;
  /** Forgets the file (after done, or to start over with another). */
  reset(): void;
}

export function useUpload(options: UploadOptions = {}): UploadHandle {
  const [state, setState] = useState<UploadState>(IDLE);
  const run = useRef<UploadRun | null>(null);
  const opts = useRef(options);
  opts.current = options;
  const live = useRef(true);

  useEffect(() => {
    live.current = true;
    return () => {
      // Leaving the page stops the transfer: nothing would show its progress or finish the order.
      live.current = false;
      run.current?.cancel();
    };
  }, []);

  const settle = useCallback(async (r: UploadRun, go: Promise<UploadPhase>) => {
    const phase = await go;
    if (phase === "done" && run.current === r && live.current) opts.current.onComplete?.(r.answerOf());
    return phase;
  }, []);

  const begin = useCallback(
    (file: Blob, target: UploadTarget, fromStored: boolean) => {
      run.current?.cancel();
      const r = new UploadRun(
        file,
        target,
        (s) => live.current && run.current === r && setState(s),
        opts.current.chunkBytes,
      );
      run.current = r;
      return settle(r, fromStored ? r.resume() : r.start());
    },
    [settle],
  );
  const start = useCallback((file: Blob, target: UploadTarget) => begin(file, target, false), [begin]);
  const resumeInto = useCallback((file: Blob, target: UploadTarget) => begin(file, target, true), [begin]);
  const resume = useCallback(() => {
    const r = run.current;
    return r ? settle(r, r.resume()) : Promise.resolve<UploadPhase>("idle");
  }, [settle]);
  const cancel = useCallback(() => run.current?.cancel(), []);
  const reset = useCallback(() => {
    run.current?.cancel();
    run.current = null;
    setState(IDLE);
  }, []);

  const busy = state.phase === "uploading" || state.phase === "retrying";
  return { state, busy, start, resume, resumeInto, cancel, reset };
}
