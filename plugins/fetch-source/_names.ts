/**
 * A display name for a downloaded file: the Content-Disposition filename when the server gives
 * one, else the last segment of the final URL's path. Names are cleaned so they can be shown and
 * used in download headers safely; they never become storage keys.
 */

/** The cleaned file name a response suggests, or "" when it suggests none. */
export function nameFromResponse(url: URL, contentDisposition: string | undefined): string {
  return clean(fromDisposition(contentDisposition) ?? fromPath(url.pathname) ?? "");
}

function fromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // RFC 6266: filename* (RFC 5987, charset'lang'pct-encoded) wins over a plain filename.
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[2]!.trim());
    } catch {
      // fall through to the plain form
    }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, "$1");
  const bare = /filename\s*=\s*([^;\s]+)/i.exec(header);
  return bare?.[1];
}

function fromPath(pathname: string): string | undefined {
  const last = pathname.split("/").filter(Boolean).pop();
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function clean(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // Control characters and quotes make trouble in logs and headers; leading dots hide files.
  const tidy = base
    .replace(/[\u0000-\u001f\u007f"<>|:*?]/g, "_")
    .replace(/^\.+/, "")
    .trim();
  return tidy.length > 200 ? tidy.slice(0, 100) + tidy.slice(-100) : tidy;
}
