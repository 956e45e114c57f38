/**
 * An episode's own cover art (PUT /episodes/{id}/cover): the picture behind its audio clips, over
 * a brand kit's. A file goes up as its bytes, a link is fetched by the server; either can be removed.
 */
import { useId, useState } from "react";
import { call } from "../api";
import { ErrorText, handler, Notice, useAction } from "../ui";

interface CoverAnswer {
  cover: { set: boolean; width?: number; height?: number };
}

export function EpisodeCover({ episodeId }: { episodeId: string }) {
  const id = useId();
  const { busy, error, run } = useAction();
  const [said, setSaid] = useState<string | null>(null);
  const [link, setLink] = useState("");
  const path = `/episodes/${encodeURIComponent(episodeId)}/cover`;
  const done = (a: CoverAnswer | undefined) =>
    a &&
    setSaid(
      a.cover.set
        ? `Cover art set (${a.cover.width}×${a.cover.height}); clips cut from now on use it.`
        : "Cover art removed.",
    );

  return (
    <details className="episode-cover">
      <summary>Cover art for audio clips</summary>
      <p className="hint">A PNG, JPEG or WebP picture behind this episode’s audio clips, over the brand kit’s.</p>
      <div className="field">
        <label htmlFor={`${id}-file`}>Cover art file</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".png,.jpg,.jpeg,.webp,image/png,image/jpeg,image/webp"
          disabled={busy}
          onChange={handler(async (e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = "";
            if (file) done(await run(() => call<CoverAnswer>("PUT", path, file)));
          })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-url`}>Or a link to it</label>
        <input
          id={`${id}-url`}
          type="url"
          value={link}
          placeholder="https://example.com/cover.jpg"
          onChange={(e) => setLink(e.currentTarget.value)}
        />
      </div>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={busy || !link.trim()}
          onClick={handler(async () =>
            done(await run(() => call<CoverAnswer>("PUT", `${path}?url=${encodeURIComponent(link.trim())}`))),
          )}
        >
          Use the link
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={handler(async () => done(await run(() => call<CoverAnswer>("DELETE", path))))}
        >
          Remove cover art
        </button>
      </div>
      <div aria-live="polite">{said && <Notice kind="ok">{said}</Notice>}</div>
      <ErrorText error={error} />
    </details>
  );
}
