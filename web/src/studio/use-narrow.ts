/** True while the window is narrower than the workspace's two columns (a phone, a small tablet). */
import { useEffect, useState } from "react";

export const NARROW = "(max-width: 959px)";

export function useNarrow(query = NARROW): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const m = window.matchMedia(query);
    const on = () => setNarrow(m.matches);
    on();
    m.addEventListener("change", on);
    return () => m.removeEventListener("change", on);
  }, [query]);
  return narrow;
}
