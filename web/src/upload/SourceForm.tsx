/**
 * "A link or a file": a form with the choice (radios "A link" / "A file"), the field "Link to the
 * recording" or "Recording file" (a file may also be dropped onto the form), and one submit button.
 * The page does the work in `onSubmit`; the form only collects.
 */
import { useId, useState, type DragEvent, type FormEvent, type ReactNode } from "react";
import "./upload.css";

export type Source = { kind: "link"; url: string } | { kind: "file"; file: File };

interface Props {
  onSubmit: (source: Source) => void;
  busy: boolean;
  submitLabel?: string;
  linkHint?: string;
  fileHint?: string;
  /** Shown above the button: errors, notes. */
  children?: ReactNode;
}

const ACCEPT = "audio/*,video/*,.mp3,.m4a,.wav,.flac,.ogg,.opus,.aac,.mp4,.mov,.mkv,.webm";

export function SourceForm({ onSubmit, busy, submitLabel = "Transcribe", linkHint, fileHint, children }: Props) {
  const id = useId();
  const [kind, setKind] = useState<Source["kind"]>("link");
  const [file, setFile] = useState<File | null>(null);
  const [over, setOver] = useState(false);

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (kind === "file") {
      if (file) onSubmit({ kind, file });
      return;
    }
    const url = String(new FormData(e.currentTarget).get("url") ?? "").trim();
    if (url) onSubmit({ kind, url });
  }
  function drop(e: DragEvent<HTMLFormElement>) {
    const f = e.dataTransfer.files[0];
    setOver(false);
    if (!f) return;
    e.preventDefault();
    setKind("file");
    setFile(f);
  }
  const dragging = (e: DragEvent<HTMLFormElement>) => {
    if (!Array.from(e.dataTransfer.types).includes("Files")) return;
    e.preventDefault();
    setOver(true);
  };

  return (
    <form
      onSubmit={submit}
      className={over ? "source-form stack is-over" : "source-form stack"}
      onDragOver={dragging}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <fieldset className="source-kind">
        <legend>Source</legend>
        <label className="choice">
          <input
            type="radio"
            name="kind"
            value="link"
            checked={kind === "link"}
            onChange={() => setKind("link")}
            disabled={busy}
          />{" "}
          A link
        </label>
        <label className="choice">
          <input
            type="radio"
            name="kind"
            value="file"
            checked={kind === "file"}
            onChange={() => setKind("file")}
            disabled={busy}
          />{" "}
          A file
        </label>
      </fieldset>
      <div className="field source-field">
        {kind === "link" ? (
          <>
            <label htmlFor={id + "url"}>Link to the recording</label>
            <input
              id={id + "url"}
              name="url"
              type="url"
              inputMode="url"
              required
              pattern="https://.*"
              placeholder="https://example.com/episode.mp3"
              aria-describedby={id + "hint"}
              disabled={busy}
              autoComplete="off"
            />
            <p className="hint" id={id + "hint"}>
              {linkHint ?? "A direct https link to an audio or video file."}
            </p>
          </>
        ) : (
          <>
            <label htmlFor={id + "file"}>Recording file</label>
            <input
              id={id + "file"}
              name="file"
              type="file"
              accept={ACCEPT}
              aria-describedby={id + "hint"}
              disabled={busy}
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            />
            <p className="hint" id={id + "hint"}>
              {file ? `Chosen: ${file.name}. ` : ""}
              {fileHint ?? "An audio or video file; you can also drop it here."}
            </p>
          </>
        )}
      </div>
      {children}
      <div>
        <button type="submit" disabled={busy || (kind === "file" && !file)}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
