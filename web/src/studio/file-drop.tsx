/**
 * Picks the episode's file: a file input labelled "Video or audio file" (keyboard and screen
 * readers), and a file dropped anywhere on the page while it is open. The drop only takes the
 * first file, and a drop outside the form no longer makes the browser navigate to the file.
 * An empty file or one that is not media (upload/file-check.ts) is refused here, in a
 * role="alert", before anything is created for it.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { formatBytes } from "../upload";
import { MEDIA_ACCEPT, refuseFile } from "../upload/file-check";

export function FileDrop({
  file,
  onFile,
  disabled,
  id = "episode-file",
  label = "Video or audio file",
  maxBytes,
}: {
  file: File | null;
  onFile: (f: File | null) => void;
  disabled?: boolean;
  id?: string;
  label?: string;
  /** The largest file the upload takes: a larger one is refused here, before anything is made for it. */
  maxBytes?: number;
}) {
  const [over, setOver] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const take = useCallback(
    (f: File | null) => {
      if (!f) return (setRefused(null), onFile(null));
      void refuseFile(f, maxBytes).then((why) => {
        setRefused(why);
        if (why && input.current) input.current.value = "";
        onFile(why ? null : f);
      });
    },
    [onFile, maxBytes],
  );
  useEffect(() => {
    if (disabled) return;
    let depth = 0;
    const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes("Files");
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth++;
      setOver(true);
    };
    const leave = () => {
      depth = Math.max(0, depth - 1);
      if (!depth) setOver(false);
    };
    const overFn = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setOver(false);
      const f = e.dataTransfer?.files?.[0];
      if (!f) return;
      // Show the dropped file in the input too, so what it says matches what will be sent.
      try {
        const dt = new DataTransfer();
        dt.items.add(f);
        if (input.current) input.current.files = dt.files;
      } catch {
        /* an older browser: the line below still names the file */
      }
      take(f);
    };
    document.addEventListener("dragenter", enter);
    document.addEventListener("dragleave", leave);
    document.addEventListener("dragover", overFn);
    document.addEventListener("drop", drop);
    return () => {
      document.removeEventListener("dragenter", enter);
      document.removeEventListener("dragleave", leave);
      document.removeEventListener("dragover", overFn);
      document.removeEventListener("drop", drop);
    };
  }, [take, disabled]);

  return (
    <div className={`drop${over ? " drop-over" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        ref={input}
        type="file"
        accept={MEDIA_ACCEPT}
        aria-describedby={`${id}-hint`}
        disabled={disabled}
        onChange={(e) => take(e.currentTarget.files?.[0] ?? null)}
      />
      <p className="hint" id={`${id}-hint`}>
        Or drop a file anywhere on this page. Audio: MP3, M4A, AAC, WAV, OGG, Opus, FLAC. Video: MP4, MOV, M4V, WebM,
        MKV, AVI.
      </p>
      <p className="drop-chosen" aria-live="polite">
        {file ? `Chosen: ${file.name} (${formatBytes(file.size)})` : over ? "Drop the file to choose it." : ""}
      </p>
      {refused && (
        <p role="alert" className="alert alert-error">
          {refused}
        </p>
      )}
    </div>
  );
}
