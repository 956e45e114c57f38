/**
 * Where to go after signing in or up: the page that asked (`?next=`), deep paths and their query
 * included (`/episodes/<id>`, `/oauth/consent?…`), if it is one of ours; else the episodes, which
 * is what a creator signs in for. "Ours" is a path from this origin: one leading slash, not
 * `//host` or `/\host` (which browsers read as another site), no scheme, no spaces or fragment.
 */
export const HOME = "/episodes";

export function nextPath(query: URLSearchParams): string {
  const n = query.get("next") ?? "";
  return /^\/(?![/\\])[^\s\\#]*$/.test(n) ? n : HOME;
}
