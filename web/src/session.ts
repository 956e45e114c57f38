/** The signed-in state the whole app shares, read from GET /web/api/v1/session. */
import { createContext, useContext } from "react";
import type { Session } from "./types";

export interface SessionState {
  session: Session;
  /** Reads the session again (after sign-in, sign-out, a password change): new CSRF token too. */
  refresh(): Promise<Session>;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside the app");
  return s;
}
