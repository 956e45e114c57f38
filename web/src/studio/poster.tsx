/**
 * A clip's poster (GET /web/api/v1/clips/{id}/poster.jpg, drawn once on the server and kept): a
 * frame in a 9:16 slot of fixed size (other shapes shown whole inside it), so nothing moves when it arrives, and lazy,
 * so a long page fetches
 * only what is on screen. Without a clip, or when the poster cannot be had, a plain card keeps
 * its place.
 */
import { useState } from "react";

export const posterUrl = (clipId: string) => `/web/api/v1/clips/${encodeURIComponent(clipId)}/poster.jpg`;

export function Poster({
  clipId,
  title,
  width = 90,
  eager = false,
}: {
  clipId?: string;
  title?: string;
  width?: number;
  eager?: boolean;
}) {
  const [failed, setFailed] = useState(false);
  const height = Math.round((width * 16) / 9);
  if (!clipId || failed)
    return (
      <span className="poster poster-none" style={{ width, height }} aria-hidden="true">
        ▶
      </span>
    );
  return (
    <img
      className="poster"
      src={posterUrl(clipId)}
      width={width}
      height={height}
      alt={title ? `Poster of the clip “${title}”` : "Poster of the clip"}
      loading={eager ? "eager" : "lazy"}
      decoding="async"
      onError={() => setFailed(true)}
    />
  );
}
