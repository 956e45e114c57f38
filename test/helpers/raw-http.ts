// Requests written byte by byte over a plain socket, for what fetch will not send: a body that
// breaks off, chunk framing that is wrong, a declared length far past what is sent.
import net from "node:net";

export interface RawResult {
  /** The status line's code, or undefined when the server answered nothing before closing. */
  status?: number;
  text: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  /** Body pieces, written in order; with `chunked`, each is framed as one chunk. */
  pieces?: (string | Buffer)[];
  chunked?: boolean;
  /** Written as is after the head, instead of pieces (broken framing). */
  raw?: string;
  /** Cut the connection right after writing, without waiting for an answer. */
  abort?: boolean;
  /** Leave the chunked body unterminated (no last chunk). */
  unterminated?: boolean;
}

/** Sends one request and reads until the server closes; `boundMs` only stops a test from hanging. */
export function rawRequest(port: number, r: RawRequest, boundMs = 60_000): Promise<RawResult> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    const done = () => {
      clearTimeout(bound);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : undefined, text });
    };
    const bound = setTimeout(() => socket.destroy(), boundMs);
    socket.on("data", (d) => {
      if (text.length < 64 * 1024) text += d.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", done);
    socket.on("connect", () => {
      const headers: Record<string, string | number> = { host: `127.0.0.1:${port}`, connection: "close", ...r.headers };
      if (r.chunked) headers["transfer-encoding"] = "chunked";
      const head = [`${r.method} ${r.path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      if (r.raw !== undefined) socket.write(r.raw);
      for (const p of r.pieces ?? []) {
        const b = Buffer.isBuffer(p) ? p : Buffer.from(p);
        socket.write(
          r.chunked ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from("\r\n")]) : b,
        );
      }
      if (r.chunked && !r.unterminated && !r.abort) socket.write("0\r\n\r\n");
      if (r.abort) socket.destroy();
    });
  });
}
