/**
 * Asks before the tab is closed, reloaded or left while `active` (an upload in flight): leaving
 * stops the transfer. The browser shows its own words; the page's episode can be resumed later
 * from its page (resume.tsx), but the person should know they are interrupting it.
 */
import { useEffect } from "react";

export function useLeaveGuard(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const ask = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older Chromium needs a value set to show the prompt.
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", ask);
    return () => window.removeEventListener("beforeunload", ask);
  }, [active]);
}
