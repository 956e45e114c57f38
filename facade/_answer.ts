/**
 * Writes an operation's Answer out as an HTTP response (the API routes and the web transport alike).
 * A JSON answer is h3's HTTPResponse, which h3 writes straight to the socket; a web Response's body
 * would be read back through a web stream first (a visible share of a cached read in a profile).
 */
import { HTTPResponse } from "h3";
import { lingerOver, requestHasBody } from "./_body.js";
import type { Answer } from "./core/run-operation.js";

export function answerResponse(req: Request, answer: Answer): Response | HTTPResponse {
  if ("raw" in answer) return answer.raw;
  // Refused before its body was read: close rather than drain what the client is still sending,
  // but linger briefly first, so the client reads the refusal before the close resets it.
  if (!answer.bodyRead && answer.status >= 400 && requestHasBody(req)) {
    answer.headers.set("connection", "close");
    lingerOver(req);
  }
  // A replay goes out as the bytes first sent (its record kept them: facade/idempotency.ts answerText).
  return new HTTPResponse(answer.text ?? JSON.stringify(answer.body), {
    status: answer.status,
    headers: answer.headers,
  });
}
