/**
 * The resumable uploader: sends a file to a signed upload address (the `upload` an episode, a web
 * transcript or the free page hands out) in 8 MiB pieces, each a PUT with
 * `Content-Range: bytes <first>-<last>/<total>`; a file of one piece or less goes whole in a plain
 * PUT. After a dropped connection (or a 408/429/5xx) it waits 1, 2, 4, 8, 16 s, asks
 * `HEAD <url>` for `Upload-Offset` and goes on from there, by itself up to 5 times, then pauses for
 * "Resume upload". A 409 upload_offset_mismatch moves it to the answer's `offset`. A refusal
 * (413, 415, 410 expired, 403) stops it with the reason. Cancel aborts the request in flight and
 * keeps the stored part, so Resume goes on while the link lasts (2 hours).
 *
 * Use:
 *
 *   const upload = useUpload({ onComplete: (answer) => tellServerItIsUploaded() });
 *   await upload.start(file, { url, headers, expires_at });   // resolves "done" | "cancelled" | "paused" | "failed"
 *   <UploadProgress upload={upload} />                        // bar "Upload progress", bytes, speed, time left,
 *                                                             // buttons "Cancel upload" / "Resume upload"
 *
 * <SourceForm onSubmit={(src) => …} busy={…}>  is the "A link" / "A file" choice with the fields
 * "Link to the recording" and "Recording file" (a file may be dropped on it) and one submit button.
 *
 * `upload.state` holds phase, fileName, sent, total, bytesPerSecond, secondsLeft, error and
 * canResume; `upload.busy` is true while bytes are going or a retry waits (disable the form on it).
 * `onComplete` fires once, whether the last byte went after start() or after a later resume().
 * The pieces' arithmetic (plan.ts) is plain functions, tested in test/unit/upload-plan.test.ts.
 */
export { useUpload, type UploadHandle, type UploadOptions } from "./useUpload";
export { UploadProgress } from "./UploadProgress";
export { SourceForm, type Source } from "./SourceForm";
export type { UploadPhase, UploadState, UploadTarget } from "./engine";
export { CHUNK_BYTES, formatBytes } from "./plan";
