/**
 * Reads `path` (a search as you type: the query is in it) a quarter second after it last changed,
 * the first read at once; an answer to a path already replaced is dropped. Null reads nothing.
 */
import { useEffect, useRef, useState } from "react";
import { call, messageOf } from "../api";

export function useSearch<T>(path: string | null): { data: T | null; error: string | null } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const first = useRef(true);
  useEffect(() => {
    if (path === null) return;
    let gone = false;
    const t = window.setTimeout(
      () =>
        call<T>("GET", path).then(
          (r) => gone || (setData(r), setError(null)),
          (err) => gone || setError(messageOf(err)),
        ),
      first.current ? 0 : 250,
    );
    first.current = false;
    return () => {
      gone = true;
      window.clearTimeout(t);
    };
  }, [path]);
  return { data, error };
}
