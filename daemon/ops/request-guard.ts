/**
 * No request may end the process. h3 already turns an error thrown by a handler into an error
 * answer, but an error thrown from a callback a request scheduled (a stream event, a timer, a
 * listener a library added) or a promise it rejected with nobody listening escapes every handler,
 * and Node's default for both is to print and exit: the site, the API, the workers and the watch
 * folder gone because of one request.
 *
 * Each request runs inside an AsyncLocalStorage scope, so when such an error surfaces the guard
 * knows which request it came from: it logs it, ends that request (a 500 in the usual error
 * envelope when nothing was sent yet, otherwise the connection is cut) and the process goes on.
 * An error with no request behind it is not ours to judge: the process exits as Node would, and
 * the queue hands the running work to the next start (crash-only recovery).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";

interface RequestScope {
  req: IncomingMessage;
  res: ServerResponse;
}

const scope = new AsyncLocalStorage<RequestScope>();
let installed: { log: Logger } | undefined;

/** Runs `fn` (a request's listeners) inside the request's scope. */
export function inRequestScope<T>(req: IncomingMessage, res: ServerResponse, fn: () => T): T {
  return scope.run({ req, res }, fn);
}

/** Ends one request that an escaped error broke, without throwing whatever state it is in. */
function endRequest({ req, res }: RequestScope): void {
  try {
    if (!res.headersSent && !res.writableEnded && !res.destroyed) {
      const body = JSON.stringify({
        error: { code: "internal", message: "the server failed while answering this request; send it again" },
      });
      res.writeHead(500, { "content-type": "application/json", connection: "close" });
      res.end(body);
    } else {
      res.destroy();
    }
  } catch {
    // The response could not be written: cutting the connection is all that is left.
  }
  try {
    if (res.headersSent || res.destroyed) req.socket?.destroySoon?.();
  } catch {
    // already gone
  }
}

function describe(s: RequestScope) {
  return { method: s.req.method, path: (s.req.url ?? "").split("?")[0] };
}

function onUncaught(err: unknown): void {
  const s = scope.getStore();
  if (s) {
    installed?.log.error({ err, request: describe(s) }, "an error escaped a request; that request was ended");
    endRequest(s);
    return;
  }
  // Another listener (a test runner, an embedding program) decides for itself, as Node lets it.
  if (process.listenerCount("uncaughtException") > 1) return;
  installed?.log.fatal({ err }, "uncaught error outside any request; exiting (the queue retries running work)");
  process.exitCode = 1;
  // Written synchronously before the exit, so the log line is not lost.
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
}

function onUnhandled(reason: unknown): void {
  const s = scope.getStore();
  if (s) {
    installed?.log.error({ err: reason, request: describe(s) }, "a request left a promise rejected; request ended");
    endRequest(s);
    return;
  }
  if (process.listenerCount("unhandledRejection") > 1) return;
  // Outside a request the default stands: rethrown, it becomes an uncaught error (above).
  throw reason;
}

/** Installs the process-wide handlers once (every server in the process shares them). */
export function guardRequests(log: Logger): void {
  if (installed) {
    installed.log = log;
    return;
  }
  installed = { log };
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUnhandled);
}
