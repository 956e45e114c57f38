/**
 * A small router on the History API: the current path and query come from a React hook, links
 * push a new entry without a page load, and the browser's back/forward buttons re-render. The
 * server answers index.html for every app path, so a reload lands on the same page.
 */
import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from "react";

const listeners = new Set<() => void>();
function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  window.addEventListener("popstate", fn);
  return () => {
    listeners.delete(fn);
    window.removeEventListener("popstate", fn);
  };
}
const snapshot = () => window.location.pathname + window.location.search;

/** A question to ask before the app leaves the current page (unsaved edits), or null. */
let leaving: string | null = null;
let here = typeof window === "undefined" ? "" : snapshot();

/** Asks `question` before any in-app navigation until the returned function is called. */
export function guardLeaving(question: string): () => void {
  leaving = question;
  here = snapshot();
  return () => {
    if (leaving === question) leaving = null;
  };
}

// The back and forward buttons: declined, the page stays (its address put back) and no listener hears of it.
if (typeof window !== "undefined")
  window.addEventListener("popstate", (e) => {
    if (leaving && snapshot() !== here && !window.confirm(leaving)) {
      e.stopImmediatePropagation();
      window.history.pushState(null, "", here);
      return;
    }
    leaving = null;
    here = snapshot();
  });

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (leaving && !opts.replace) {
    if (!window.confirm(leaving)) return;
    leaving = null;
  }
  if (opts.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.scrollTo(0, 0);
  for (const fn of listeners) fn();
}

/** The current location; re-renders the caller whenever it changes. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const loc = useSyncExternalStore(subscribe, snapshot);
  const u = new URL(loc, "http://x");
  return { path: u.pathname, query: u.searchParams };
}

/** An anchor that navigates in-app for plain left clicks and behaves normally otherwise. */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  function click(e: MouseEvent<HTMLAnchorElement>) {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  }
  return <a href={href} onClick={click} {...rest} />;
}

/** Replaces the current entry (for "/" and pages that need a signed-in or signed-out caller). */
export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
