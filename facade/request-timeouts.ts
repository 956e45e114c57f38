/**
 * How long a request may take to arrive. Node's own `requestTimeout` (300 s by default) bounds a
 * whole request by wall time, which cut off whole-file upload PUTs of a few GB on an ordinary line
 * (issue 27), and Node cannot set it per route. So the server's is turned off (0) and this module
 * bounds requests itself, by what they are:
 *
 * - a signed upload PUT (`/api/v1/uploads/…`, also under `/web`) is cut off only when it sends
 *   nothing for `server.upload_idle_seconds` (the socket's idle timer, until the body is in); its
 *   length is bounded by the size cap in the token, not by time;
 * - every other request must have sent its whole body within `server.request_body_seconds` of its
 *   start, as Node's requestTimeout did. `headersTimeout` (60 s) is left as Node has it.
 *
 * Either way the answer is a 408 with the usual error body, then the connection is closed.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";

const UPLOAD_PUT = /^(\/web)?\/api\/v1\/uploads\/[^/?]+(\?|$)/;

export interface RequestTimeouts {
  uploadIdleSeconds: number;
  requestBodySeconds: number;
}

export function applyRequestTimeouts(server: Server, t: RequestTimeouts): void {
  server.requestTimeout = 0;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "PUT" && UPLOAD_PUT.test(req.url ?? "")) idleBound(req, res, t.uploadIdleSeconds);
    else bodyBound(req, res, t.requestBodySeconds);
  });
}

/** Cut off when no byte arrives for `seconds`, until the body is complete. */
function idleBound(req: IncomingMessage, res: ServerResponse, seconds: number): void {
  const onIdle = () => {
    if (req.complete) return;
    cutOff(req, res, "upload_idle", `no bytes arrived for ${seconds} s; the upload was cut off. Send it again`, {
      idle_seconds: seconds,
    });
  };
  // On the request, not the socket: with a listener there, Node's own socket timeout handler
  // leaves the socket for this one to answer 408 on.
  req.setTimeout(seconds * 1000, onIdle);
  // Once the body is in, the work after it (storing, joining chunks) may take its time.
  const done = () => {
    req.socket?.setTimeout(0);
    req.off("timeout", onIdle);
  };
  req.once("end", done);
  res.once("close", done);
}

/** Cut off when the body is not complete `seconds` after the request began. */
function bodyBound(req: IncomingMessage, res: ServerResponse, seconds: number): void {
  const timer = setTimeout(() => {
    if (req.complete) return;
    cutOff(req, res, "request_timeout", `the request body did not arrive within ${seconds} s`, {
      limit: "request_body_seconds",
      seconds,
    });
  }, seconds * 1000);
  timer.unref();
  res.once("close", () => clearTimeout(timer));
}

function cutOff(
  req: IncomingMessage,
  res: ServerResponse,
  code: string,
  message: string,
  extra: Record<string, unknown>,
): void {
  if (res.headersSent || res.writableEnded) {
    req.socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code, message, ...extra } });
  res.writeHead(408, { "content-type": "application/json", connection: "close" });
  res.end(body, () => req.socket.destroy());
}
