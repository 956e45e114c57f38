/**
 * Asks before the tab is closed, reloaded or left while `active` (an upload in flight, edits not
 * saved). The browser shows its own words for that. With `inApp` the site's own links and the
 * back button ask too, in those words (router.tsx's leave check): a single-page app leaves a page
 * without unloading it, so the browser's question alone would not cover them.
 */
import { useEffect } from "react";
import { guardLeaving } from "../router";

export function useLeaveGuard(active: boolean, inApp?: string): void {
  useEffect(() => {
    if (!active) return;
    const ask = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older Chromium needs a value set to show the prompt.
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", ask);
    const release = inApp ? guardLeaving(inApp) : undefined;
    return () => {
      window.removeEventListener("beforeunload", ask);
      release?.();
    };
  }, [active, inApp]);
}
