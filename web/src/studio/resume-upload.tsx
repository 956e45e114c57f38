/**
 * An episode still waiting for its file, on its own page: when this browser kept the upload's
 * address (upload/remembered.ts, 2 hours), choosing the same file again goes on from the bytes
 * clipd already holds (HEAD's Upload-Offset) into this same episode, then starts it. Without the
 * address (another browser, or past 2 hours) the page says so; the episode can then be deleted.
 */
import { useCallback, useMemo, useState } from "react";
import { call } from "../api";
import { UploadProgress, formatBytes, useUpload } from "../upload";
import { useLeaveGuard } from "../upload/leave-guard";
import { forgetUpload, recallUpload } from "../upload/remembered";
import { ErrorText, useAction, when } from "../ui";
import { EPISODE_MAX_BYTES } from "../upload/file-check";
import { FileDrop } from "./file-drop";

export function ResumeUpload({ episodeId, onStarted }: { episodeId: string; onStarted: () => void }) {
  const kept = useMemo(() => recallUpload(episodeId), [episodeId]);
  const [file, setFile] = useState<File | null>(null);
  const [wrong, setWrong] = useState<string | null>(null);
  const finish = useAction();
  const markUploaded = useCallback(async () => {
    const ok = await finish.run(() => call("POST", `/episodes/${encodeURIComponent(episodeId)}/uploaded`, {}));
    if (!ok) return;
    forgetUpload(episodeId);
    onStarted();
  }, [episodeId, finish.run, onStarted]);
  const upload = useUpload({ onComplete: () => void markUploaded() });
  useLeaveGuard(upload.busy);

  const choose = useCallback(
    (f: File | null) => {
      setFile(f);
      setWrong(null);
      if (!f || !kept) return;
      if (f.size !== kept.size)
        return setWrong(
          `“${f.name}” is ${formatBytes(f.size)}; the upload that stopped was “${kept.fileName}”, ` +
            `${formatBytes(kept.size)}. Choose that same file.`,
        );
      void upload.resumeInto(f, kept.target);
    },
    [kept, upload.resumeInto],
  );

  if (!kept)
    return (
      <div className="alert alert-warn">
        <p>
          This episode is waiting for its file, and this browser no longer holds its upload link (links last 2 hours and
          stay in the browser that made them). Delete it and make a new episode with the file.
        </p>
      </div>
    );
  return (
    <section className="card stack resume" aria-labelledby="resume-h">
      <h2 id="resume-h">Finish the upload</h2>
      <p>
        The upload of “{kept.fileName}” ({formatBytes(kept.size)}) stopped before it was done. Choose the same file
        again and it goes on from where it stopped, into this episode. The link lasts until{" "}
        {when(kept.target.expires_at ?? "")}.
      </p>
      {upload.state.phase === "idle" && (
        <FileDrop
          id="resume-file"
          label="Choose the file again"
          file={file}
          onFile={choose}
          maxBytes={EPISODE_MAX_BYTES}
        />
      )}
      {wrong && (
        <p role="alert" className="alert alert-error">
          {wrong}
        </p>
      )}
      {upload.state.phase !== "idle" && <UploadProgress upload={upload} />}
      {finish.busy && <p aria-live="polite">Starting the episode…</p>}
      <ErrorText error={finish.error} />
    </section>
  );
}
