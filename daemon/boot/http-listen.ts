/**
 * The HTTP listener: Node's own server, with every request's listeners run inside the request
 * guard's scope (daemon/ops/request-guard.ts). It replaced listhen, whose shutdown helper set a
 * property on `req.socket` when each response finished; after an early refusal that had already
 * destroyed the socket that was a TypeError outside any handler, and one request ended the process
 * (issue 36). Node's server already does what the helper was for: close() stops accepting and
 * ends idle keep-alive connections, and closeAllConnections() cuts the rest.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { inRequestScope } from "../ops/request-guard.js";

export interface HttpListener {
  server: Server;
  address: AddressInfo;
  /** Stops accepting, lets requests in flight finish for up to `graceMs`, then cuts what is left. */
  close(graceMs?: number): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** How long a closing connection keeps reading what its client still sends. */
const LINGER_MS = 2000;

/**
 * Node closes a `Connection: close` answer's socket as soon as the answer is flushed. When the
 * client is still sending a body the server refused early, the bytes left unread make the kernel
 * reset the connection, and a reset can wipe the refusal from the client's buffer before it is
 * read. A lingering close (as web servers do it) sends the end of the answer, then keeps reading
 * until the client closes its side or LINGER_MS passes, and only then lets the socket go.
 */
function lingeringClose(this: Socket): void {
  if (this.writable) this.end();
  if (this.destroyed) return;
  if (this.readableEnded) {
    this.destroy();
    return;
  }
  const cut = setTimeout(() => this.destroy(), LINGER_MS);
  cut.unref();
  this.once("end", () => this.destroy());
  this.once("close", () => clearTimeout(cut));
  this.resume();
}

export async function listenHttp(handler: Handler, opts: { port: number; host: string }): Promise<HttpListener> {
  const server = createServer();
  // Every "request" listener (the app's, the request timeouts') runs in the request's scope, so an
  // error escaping any of them, or anything they schedule, is traced to the request it broke.
  const emit = server.emit.bind(server) as (event: string, ...args: unknown[]) => boolean;
  server.emit = ((event: string, ...args: unknown[]) => {
    if (event !== "request") return emit(event, ...args);
    const [req, res] = args as [IncomingMessage, ServerResponse];
    return inRequestScope(req, res, () => emit(event, ...args));
  }) as Server["emit"];
  server.on("request", (req: IncomingMessage, res: ServerResponse) => void handler(req, res));
  server.on("connection", (socket: Socket) => {
    socket.destroySoon = lingeringClose;
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE" ? new Error(`port ${opts.port} is in use; stop what holds it or set PORT`) : err,
      );
    };
    server.once("error", onError);
    server.listen(opts.port, opts.host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    server,
    address: server.address() as AddressInfo,
    close(graceMs = 5000) {
      closing ??= new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        cut.unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
