/**
 * The MCP server over Streamable HTTP, stateless (the SDK's recommendation when nothing has to outlive
 * a request): every POST to /mcp gets a fresh server and transport bound to its caller's namespace, so
 * no state, and no namespace, can leak from one caller to the next. The store, embedder and model are
 * opened once and shared.
 *
 * Callers authenticate with `Authorization: Bearer <token>` against RECALLGRAPH_API_KEYS (the keys the
 * LangGraph server reads); each caller's namespace is their identity. A request without a valid token
 * is answered 401 before any MCP message is read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { readAtMost } from "../core/bounded-read.js";
import { ValidationError } from "../core/errors.js";
import { describeError, log } from "../core/log.js";
import { bearerToken, identityForToken, type AccessPolicy } from "../library/access-policy.js";
import type { ActionContext } from "../library/memory-actions.js";
import { createMemoryServer } from "./memory-server.js";

export const MCP_PATH = "/mcp";
/** The most one request may carry (a conversation of a few thousand turns fits): the body is read into memory before anything else. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** JSON-RPC messages one request may batch: each tool call may be a retrieval, and MCP's current revision sends one message a request. */
export const MAX_MESSAGES_PER_REQUEST = 8;

/** Whose namespace a request acts on: its key's identity, or one namespace for every caller (local use, no keys). */
export type CallerBinding = { kind: "keys"; policy: AccessPolicy } | { kind: "fixed"; namespace: string };

/**
 * The binding `--http` runs with. Keys, when configured, decide every caller's namespace, so a
 * `--namespace` beside them would be ignored: refused instead. Without keys a namespace must be named,
 * or the server would be open to anyone who can reach it with no namespace to put them in.
 */
export function httpBinding(policy: AccessPolicy, namespace: string | undefined): CallerBinding {
  if (policy.secured && namespace !== undefined) {
    throw new ValidationError("--namespace", "not with RECALLGRAPH_API_KEYS over --http: each caller's namespace is the identity of their key");
  }
  if (policy.secured) return { kind: "keys", policy };
  if (namespace === undefined) {
    throw new ValidationError("--namespace", "required with --http when RECALLGRAPH_API_KEYS is not set (set keys to authenticate callers, or name the one namespace every caller gets)");
  }
  return { kind: "fixed", namespace };
}

/** The namespace a request's Authorization header binds it to, or undefined when it must be refused. */
export function callerNamespace(binding: CallerBinding, authorization: string | undefined): string | undefined {
  if (binding.kind === "fixed") return binding.namespace;
  const token = bearerToken(authorization);
  return token === undefined ? undefined : identityForToken(binding.policy, token);
}

export interface HttpServerOptions {
  memory: ActionContext["memory"];
  binding: CallerBinding;
  host: string;
  /** 0 picks a free port; `url` tells which. */
  port: number;
  version: string;
}

export interface RunningHttpServer {
  /** Where clients connect, e.g. http://127.0.0.1:3917/mcp. */
  url: string;
  /** Resolves once the server has stopped (after `stop`). */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const server = createServer((request, response) => {
    handle(request, response, options).catch((error: unknown) => answerFailure(response, error));
  });
  await listen(server, options.port, options.host);
  const stopped = new Promise<void>((resolve) => server.once("close", () => resolve()));
  const stop = async () => {
    server.close();
    server.closeAllConnections(); // idle keep-alive sockets would hold the close open
    await stopped;
  };
  return { url: urlOf(server), stopped, stop };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function urlOf(server: Server): string {
  const { address, port, family } = server.address() as AddressInfo;
  return `http://${family === "IPv6" ? `[${address}]` : address}:${port}${MCP_PATH}`;
}

async function handle(request: IncomingMessage, response: ServerResponse, options: HttpServerOptions): Promise<void> {
  if (!hostAllowed(request.headers.host, options.host)) {
    return answer(response, 403, `Host "${request.headers.host ?? ""}" refused: on a loopback address this server answers only localhost, 127.0.0.1 and [::1]`);
  }
  if (new URL(request.url ?? "/", "http://localhost").pathname !== MCP_PATH) return answer(response, 404, `the MCP endpoint is ${MCP_PATH}`);
  const namespace = callerNamespace(options.binding, request.headers.authorization);
  if (namespace === undefined) {
    log.info("mcp_unauthorized", { remote: request.socket.remoteAddress });
    response.setHeader("WWW-Authenticate", 'Bearer realm="recallgraph"');
    return answer(response, 401, "a valid bearer token is required: Authorization: Bearer <key>");
  }
  // Stateless: there is no session to stream to (GET) or to end (DELETE).
  if (request.method !== "POST") return answer(response, 405, "only POST: this server keeps no sessions");
  const body = await readBody(request);
  if (!body.ok) return answer(response, body.status, body.message);
  await serveOne(request, response, body.value, { memory: options.memory, namespace }, options.version);
}

type Body = { ok: true; value: unknown } | { ok: false; status: number; message: string };

/** The request's JSON body, read up to MAX_REQUEST_BYTES, holding at most MAX_MESSAGES_PER_REQUEST messages. */
async function readBody(request: IncomingMessage): Promise<Body> {
  const tooLarge: Body = { ok: false, status: 413, message: `a request may carry at most ${MAX_REQUEST_BYTES} bytes` };
  if (Number(request.headers["content-length"] ?? 0) > MAX_REQUEST_BYTES) return tooLarge;
  const bytes = await readAtMost(request, MAX_REQUEST_BYTES);
  if (bytes === undefined) return tooLarge;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { ok: false, status: 400, message: "the request body is not JSON" };
  }
  if (Array.isArray(value) && value.length > MAX_MESSAGES_PER_REQUEST) {
    return { ok: false, status: 400, message: `a request may batch at most ${MAX_MESSAGES_PER_REQUEST} messages, this one has ${value.length}` };
  }
  return { ok: true, value };
}

/** One request, one server and transport, both closed when the response is. */
async function serveOne(request: IncomingMessage, response: ServerResponse, body: unknown, context: ActionContext, version: string): Promise<void> {
  const server = createMemoryServer(context, version);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether a host name or address is this machine's loopback, reachable from nowhere else. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}

/**
 * On a loopback address only loopback Host headers are served: a web page the user visits could
 * otherwise reach this server through a DNS name it rebinds to 127.0.0.1 (DNS rebinding), which matters
 * most when no key is required. On other addresses the keys are the protection.
 */
function hostAllowed(hostHeader: string | undefined, boundHost: string): boolean {
  if (!isLoopback(boundHost)) return true;
  if (hostHeader === undefined) return false;
  const hostname = hostHeader.startsWith("[") ? hostHeader.slice(0, hostHeader.indexOf("]") + 1) : hostHeader.split(":")[0];
  return isLoopback(hostname ?? "");
}

/** An error answer in JSON-RPC's shape, which MCP clients know how to show. */
function answer(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

function answerFailure(response: ServerResponse, error: unknown): void {
  log.error("mcp_request_failed", { error: describeError(error) });
  if (response.headersSent) response.end();
  else answer(response, 500, "internal server error");
}
