/**
 * The account's surfaces: the API, the website and the MCP tool server run the same operations,
 * and the runs they start carry which one it was (runs.origin). Work from an account surface is
 * the domain services' own: its webhook events come from them, in the API's shapes, and its run
 * ends settle episodes, jobs and transcripts. Work from elsewhere (the watch folder, the CLI)
 * that names an account delivers its stages' raw events instead (stage-events.ts).
 */
import type { RunOrigin } from "../engine/run.js";

export const ACCOUNT_SURFACES = ["api", "web", "chat"] as const satisfies readonly RunOrigin[];
export type AccountSurface = (typeof ACCOUNT_SURFACES)[number];

export function isAccountSurface(origin: string): origin is AccountSurface {
  return (ACCOUNT_SURFACES as readonly string[]).includes(origin);
}
