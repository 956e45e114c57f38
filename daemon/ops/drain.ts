/**
 * Whether a running clipd is shutting down: begun first thing on SIGTERM (daemon/boot/roles.ts), read by
 * `GET /readyz`, so a load balancer stops sending new requests while running steps finish and the
 * listener is still open to answer them. One per set of running roles, not per process: tests run
 * several servers in one process, and one stopping says nothing about the others.
 */
export class Drain {
  private at?: Date;

  begin(): void {
    this.at ??= new Date();
  }

  /** When draining began, or undefined while the roles take work. */
  since(): Date | undefined {
    return this.at;
  }
}
