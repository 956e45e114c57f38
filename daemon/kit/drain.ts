/**
 * Whether this process is shutting down. Set first thing on SIGTERM (daemon/roles.ts), read by
 * `GET /readyz`, so a load balancer stops sending new requests while running steps finish and the
 * listener is still open to answer them.
 */
let since: Date | undefined;

export const drain = {
  begin(): void {
    since ??= new Date();
  },
  /** When draining began, or undefined while the process takes work. */
  since(): Date | undefined {
    return since;
  },
};
