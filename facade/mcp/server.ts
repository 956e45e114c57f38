/**
 * The MCP tool server on the operation core: tools/list is the registry's account operations
 * (tools.ts), tools/call runs the operation through runOperation as a "chat" Caller, and the
 * resources read through it too (resources.ts). Transport-neutral: http.ts serves it as Streamable
 * HTTP on /mcp, daemon/boot/main.ts over stdio. Built on the SDK's low-level Server because the tools'
 * schemas are the registry's JSON Schemas (McpServer wants zod).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { prepareOperation, type Answer, type Caller } from "../core/run-operation.js";
import type { Operation } from "../registry.js";
import type { FacadeServices } from "../services.js";
import {
  parseResourceUri,
  readTranscriptFile,
  RESOURCE_TEMPLATES,
  STYLES_RESOURCE,
  TRANSCRIPT_FORMATS,
} from "./resources.js";
import { renderAnswer, renderError } from "./render.js";
import { definitionInModelWords, inModelWords, modelWords } from "./words.js";
import { requireKey } from "../auth.js";
import { bearerAudience } from "../oauth/urls.js";
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS } from "../operations/waits.js";
import { isToolOperation, splitArguments, toolDefinition, type ToolDefinition } from "./tools.js";

export interface McpCore {
  tools: ToolDefinition[];
  /** A Server whose every call acts as `caller` (its key, address and link origin). */
  server(caller: Caller): Server;
}

type Run = ReturnType<typeof prepareOperation>;
// biome-ignore lint/suspicious/noExplicitAny: an operation's answer body is untyped JSON
type Json = { status: number; body: any; headers: Headers };

/**
 * A JSON-RPC error the SDK sends as thrown (`code`, `message`, `data`). Not an McpError: its
 * message already starts "MCP error <code>: ", the SDK sends that on, and the client's McpError
 * adds the prefix again, so a refusal read "MCP error -32002: MCP error -32002: …".
 */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** Prepares every tool's operation once; servers are then cheap to make per request. */
export function createMcpCore(services: FacadeServices, operations: Operation[]): McpCore {
  const tools = new Map<string, { op: Operation; def: ToolDefinition; run: Run }>();
  const toolOps = operations.filter(isToolOperation);
  const words = modelWords(toolOps);
  for (const op of toolOps) {
    const def = definitionInModelWords(toolDefinition(op), words);
    tools.set(def.name, { op, def, run: prepareOperation(op, services) });
  }
  const byId = (id: string) => [...tools.values()].find((t) => t.op.id === id);
  const readFile = prepareOperation(readTranscriptFile, services);

  const json = (a: Answer): Json => {
    if ("raw" in a) throw new Error("an MCP operation answered raw HTTP"); // no tool is one of the HTTP-only operations
    return a;
  };
  async function call(
    name: string,
    args: Record<string, unknown>,
    caller: Caller,
    extra: Pick<Caller, "progress" | "signal"> = {},
  ): Promise<CallToolResult> {
    const tool = tools.get(name);
    if (!tool) throw rpcError(ErrorCode.InvalidParams, `no tool named "${name}"`);
    const { params, query, body, idempotencyKey, missing, unknown } = splitArguments(tool.op, args);
    if (missing)
      return renderError(400, {
        error: { code: "invalid_request", message: `argument "${missing}" is required`, field: missing },
      });
    if (unknown)
      return renderError(400, {
        error: { code: "invalid_request", message: `argument "${unknown}" is not allowed`, field: unknown },
      });
    if (idempotencyKey !== undefined && typeof idempotencyKey !== "string") {
      return renderError(400, {
        error: {
          code: "invalid_request",
          message: `argument "idempotency_key" must be a string`,
          field: "idempotency_key",
        },
      });
    }
    const who: Caller = { ...caller, ...extra, idempotencyKey: (idempotencyKey as string | undefined) ?? null };
    const answer = json(await tool.run({ params, query, readBody: async () => body }, who));
    const said = { ...answer, body: inModelWords(answer.body, words, tool.op) };
    return said.status >= 400 ? renderError(said.status, said.body) : renderAnswer(tool.def.name, said);
  }

  /** The tools the caller's key may call: a read-only key is not shown the write tools. */
  async function listFor(caller: Caller): Promise<ToolDefinition[]> {
    const audience = bearerAudience(caller, services);
    const auth = await requireKey(caller.bearer, services.accounts, null, audience).catch(() => undefined);
    const scopes: readonly string[] = auth?.key.scopes ?? [];
    return [...tools.values()].filter((t) => !t.op.scope || scopes.includes(t.op.scope)).map((t) => t.def);
  }

  /** A resource read failed: the error envelope travels as the JSON-RPC error's data. */
  const refused = (a: Json) =>
    rpcError(a.status === 404 ? -32002 : ErrorCode.InvalidRequest, `${a.body.error.code}: ${a.body.error.message}`, {
      status: a.status,
      ...a.body,
    });
  async function read(uri: string, caller: Caller) {
    const what = parseResourceUri(uri);
    if (!what) throw rpcError(-32002, `no resource at ${uri}`, { uri });
    const opFor =
      what.kind === "styles"
        ? byId("listStyles")
        : what.kind === "clips"
          ? byId("getEpisode")
          : what.kind === "captions"
            ? byId("clipCaptions")
            : undefined;
    // a facade built without that operation
    if (what.kind !== "transcript" && !opFor) throw rpcError(-32002, `no resource at ${uri}`, { uri });
    const a = opFor
      ? json(
          await opFor.run(
            { params: "id" in what ? { id: what.id } : {}, query: what.kind === "captions" ? { limit: "200" } : {} },
            caller,
          ),
        )
      : json(
          await readFile(
            { params: { id: (what as { id: string }).id, format: (what as { format: string }).format }, query: {} },
            caller,
          ),
        );
    if (a.status >= 400) throw refused(a);
    if (what.kind === "transcript")
      return { contents: [{ uri, mimeType: TRANSCRIPT_FORMATS[what.format], text: a.body.text }] };
    const data =
      what.kind === "clips"
        ? { episode_id: a.body.episode_id, status: a.body.status, clips: a.body.clips, livemode: a.body.livemode }
        : a.body;
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(data, null, 2) }] };
  }

  async function list(caller: Caller) {
    const resources: Array<Record<string, unknown>> = [STYLES_RESOURCE];
    // The ready episodes among the recent ones, when the key may read them (a refusal lists none).
    const listing = byId("listEpisodes");
    const eps = listing ? json(await listing.run({ params: {}, query: {} }, caller)) : undefined;
    if (eps?.status === 200) {
      for (const e of eps.body.episodes as Array<{ episode_id: string; name: string; status: string }>) {
        if (e.status === "ready")
          resources.push({
            uri: `clipd://episodes/${e.episode_id}/clips`,
            name: `clips-${e.episode_id}`,
            title: `Clips of ${e.name}`,
            mimeType: "application/json",
          });
      }
    }
    return { resources };
  }

  return {
    tools: [...tools.values()].map((t) => t.def),
    server(from) {
      // Whatever carried it, work started here is the chat surface's (runs.origin "chat"), and no
      // tool is an HTTP-only operation that would read the raw request.
      const caller: Caller = { ...from, surface: "chat", request: undefined };
      const server = new Server(
        { name: "clipd", version: services.version },
        {
          capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
          instructions:
            "clipd turns long recordings into captioned vertical clips and transcripts. Every tool but the " +
            "wait_ tools is one account API operation. Work is asynchronous: start it, then call " +
            `wait_for_episode or wait_for_job (each waits ${DEFAULT_WAIT_SECONDS} s unless told otherwise, ` +
            `at most ${MAX_WAIT_SECONDS} s, with progress) or the get_ tool it names.`,
        },
      );
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listFor(caller) }));
      server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
        // A caller that gave a progressToken hears how long work moves along (the wait tools report).
        const token = req.params._meta?.progressToken;
        const progress =
          token === undefined
            ? undefined
            : (p: { progress: number; total?: number; message?: string }) =>
                extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...p } });
        const signal = caller.signal ? AbortSignal.any([caller.signal, extra.signal]) : extra.signal;
        return call(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>, caller, {
          ...(progress ? { progress } : {}),
          signal,
        });
      });
      server.setRequestHandler(ListResourcesRequestSchema, async () => list(caller));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
        resourceTemplates: RESOURCE_TEMPLATES,
      }));
      server.setRequestHandler(ReadResourceRequestSchema, async (req) => read(req.params.uri, caller));
      return server;
    },
  };
}
