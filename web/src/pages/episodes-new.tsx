/**
 * New episode, from a direct https link or a file. A link: POST /episodes {source_url} and on to
 * the episode. A file: POST /episodes {file_name} hands out a signed upload address (2 hours),
 * the resumable uploader (web/src/upload) sends the file there with its progress, Cancel and
 * Resume, then POST /episodes/{id}/uploaded starts the work and the page goes to the episode.
 * The account's clip defaults (GET /me) are shown: the episode page starts its cut panel on them.
 * While the file goes up, leaving the page asks first, and the upload address is kept in this
 * browser (upload/remembered.ts) so the episode's own page can take the same file and go on.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { call } from "../api";
import { Link, navigate } from "../router";
import { FileDrop } from "../studio/file-drop";
import { describeLook } from "../studio/look";
import { EpisodePrice, probeSeconds } from "../studio/price";
import { UploadProgress, useUpload } from "../upload";
import { EPISODE_MAX_BYTES, EPISODE_MAX_SECONDS } from "../upload/file-check";
import { useLeaveGuard } from "../upload/leave-guard";
import { forgetUpload, rememberUpload } from "../upload/remembered";
import type { CaptionStyle, ClipLook, EpisodeCreated } from "../types";
import { ErrorText, Field, handler, useAction, useTitle, when } from "../ui";
import "../studio/studio.css";

const LENGTHS = [15, 30, 45, 60, 90, 120, 180];

export default function NewEpisodePage() {
  useTitle("New episode");
  const [file, setFile] = useState<File | null>(null);
  const [seconds, setSeconds] = useState<number | null>(null);
  useEffect(() => {
    setSeconds(null);
    if (file) void probeSeconds(file).then(setSeconds);
  }, [file]);
  const [created, setCreated] = useState<{ id: string; expires: string } | null>(null);
  const { busy, error, setError, run } = useAction();
  const finish = useAction();

  const markUploaded = useCallback(
    async (id: string) => {
      const ok = await finish.run(() => call("POST", `/episodes/${encodeURIComponent(id)}/uploaded`, {}));
      if (!ok) return;
      forgetUpload(id);
      navigate(`/episodes/${encodeURIComponent(id)}`);
    },
    [finish.run],
  );
  // A ref, not state: the uploader may finish before React renders the episode id into a closure.
  const episode = useRef<string | null>(null);
  const upload = useUpload({ onComplete: () => episode.current && void markUploaded(episode.current) });
  useLeaveGuard(upload.busy);
  // The upload shows below a long form: bring it into view (and to screen readers) when it starts.
  const uploadHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (created) uploadHeading.current?.focus();
  }, [created]);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const link = String(form.get("source_url") ?? "").trim();
    if (link && file) return setError("Give a link or a file, not both: clear the link to upload the file.");
    if (!link && !file) return setError("Give a link to the episode or choose a file to upload.");
    if (!link && seconds !== null && seconds > EPISODE_MAX_SECONDS)
      return setError(
        `An episode can be at most ${EPISODE_MAX_SECONDS / 3600} hours long: choose a shorter recording.`,
      );
    const body: Record<string, unknown> = { content_type: form.get("content_type") };
    const name = String(form.get("name") ?? "").trim();
    const about = String(form.get("about") ?? "").trim();
    const target = String(form.get("target_seconds") ?? "");
    if (name) body.name = name;
    if (about) body.about = about;
    if (target) body.target_seconds = Number(target);
    if (link) body.source_url = link;
    else body.file_name = file!.name;
    const answer = await run(() => call<EpisodeCreated>("POST", "/episodes", body));
    if (!answer) return;
    if (!answer.upload) return navigate(`/episodes/${encodeURIComponent(answer.episode_id)}`);
    episode.current = answer.episode_id;
    rememberUpload(answer.episode_id, { target: answer.upload, fileName: file!.name, size: file!.size });
    setCreated({ id: answer.episode_id, expires: answer.upload.expires_at });
    await upload.start(file!, answer.upload);
  }

  const locked = busy || upload.busy || !!created;
  return (
    <>
      <h1>New episode</h1>
      <p className="lead">
        clipd transcribes the episode and finds the moments worth posting. Then you choose clips, style their captions
        and cut them on the episode&rsquo;s page.
      </p>
      <form onSubmit={handler(submit)} className="card stack" aria-labelledby="source-h" noValidate>
        <h2 id="source-h">Source</h2>
        <Field
          label="Link to the episode"
          name="source_url"
          type="url"
          inputMode="url"
          placeholder="https://example.com/episode.mp3"
          hint="A direct https link to an audio or video file."
          disabled={locked}
          autoComplete="off"
        />
        <p className="or" aria-hidden="true">
          or
        </p>
        <FileDrop file={file} onFile={setFile} disabled={locked} maxBytes={EPISODE_MAX_BYTES} />
        {seconds !== null && seconds > EPISODE_MAX_SECONDS && (
          <p role="alert" className="alert alert-error">
            This recording is {Math.floor(seconds / 3600)} h {Math.round((seconds % 3600) / 60)} min long; an episode
            can be at most {EPISODE_MAX_SECONDS / 3600} hours. Cut it into parts and make an episode of each.
          </p>
        )}
        <h2>Options</h2>
        <div className="row-fields">
          <Field label="Name" name="name" maxLength={200} placeholder="Optional" disabled={locked} autoComplete="off" />
          <div className="field">
            <label htmlFor="content-type">Content type</label>
            <select id="content-type" name="content_type" defaultValue="podcast" disabled={locked}>
              <option value="podcast">Podcast or interview</option>
              <option value="stream">Stream</option>
              <option value="other">Other</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="target-seconds">Target clip length</label>
            <select id="target-seconds" name="target_seconds" defaultValue="" disabled={locked}>
              <option value="">clipd chooses</option>
              {LENGTHS.map((s) => (
                <option key={s} value={s}>
                  {s < 60 ? `${s} seconds` : s % 60 ? `${s / 60} minutes` : `${s / 60} minute${s === 60 ? "" : "s"}`}
                </option>
              ))}
            </select>
          </div>
        </div>
        <Field
          label="Find clips about"
          name="about"
          maxLength={500}
          placeholder="Optional: a topic, e.g. the moon landing"
          disabled={locked}
          autoComplete="off"
        />
        <Defaults />
        <EpisodePrice seconds={seconds} />
        <ErrorText error={error} />
        {!created && (
          <div>
            <button type="submit" disabled={locked}>
              Create episode
            </button>
          </div>
        )}
      </form>
      {created && (
        <section aria-labelledby="upload-h" className="card">
          <h2 id="upload-h" ref={uploadHeading} tabIndex={-1}>
            Uploading
          </h2>
          <UploadProgress upload={upload} />
          <p className="hint">
            The upload link is valid for 2 hours (until {when(created.expires)}): if the connection drops, Resume upload
            goes on from where it stopped. Keep this page open until it is done.
          </p>
          {finish.busy && <p aria-live="polite">Starting the episode…</p>}
          <ErrorText error={finish.error} />
          {upload.state.phase === "done" && finish.error && (
            <button type="button" onClick={() => void markUploaded(created.id)} disabled={finish.busy}>
              Try again
            </button>
          )}
          {(upload.state.phase === "failed" || upload.state.phase === "cancelled") && (
            <button
              type="button"
              className="secondary"
              onClick={() => (upload.reset(), setCreated(null), (episode.current = null))}
            >
              Start over
            </button>
          )}
        </section>
      )}
    </>
  );
}

/** The account's clip defaults (GET /me): what a cut starts from unless the cut panel changes it. */
function Defaults() {
  const [look, setLook] = useState<ClipLook | null>(null);
  const [styles, setStyles] = useState<CaptionStyle[]>([]);
  useEffect(() => {
    call<{ defaults: ClipLook }>("GET", "/me").then(
      (m) => setLook(m.defaults),
      () => setLook(null),
    );
    call<{ styles: CaptionStyle[] }>("GET", "/styles").then(
      (s) => setStyles(s.styles),
      () => {},
    );
  }, []);
  const styleName = (id: string) => styles.find((s) => s.id === id)?.name ?? id;
  return (
    <section aria-labelledby="defaults-h" className="defaults-box">
      <h2 id="defaults-h">Your clip defaults</h2>
      <p className="hint">
        Clips you cut from this episode start with these; change them for each cut on the episode&rsquo;s page, or save
        new ones from a clip. See also <Link href="/account">Account</Link>.
      </p>
      <dl className="defaults">
        {(look ? describeLook(look, styleName) : []).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
