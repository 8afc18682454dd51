/**
 * The LangGraph server's auth handler (`auth.path` in langgraph.json). It denies by default, at two
 * levels:
 *
 * - **Routes.** `authenticate` sees every request. It answers the health check without a key, asks
 *   every other request for `Authorization: Bearer <token>` (401), and refuses any route that is not
 *   in routes.ts (403), whatever langgraph-api registers: its internal routes, the thread-protocol
 *   routes and LangGraph's key-value store among them.
 * - **Actions.** Of the resource/action pairs langgraph-api asks about, only those below are allowed,
 *   each with an owner filter that langgraph-api applies to what it stores (never a rewritten request
 *   value, which some of its routes do not read back); every other pair is refused with 403.
 *
 * Runs are held to their caller's namespaces before they start (403), and the served graphs check them
 * again (access.ts). To use another identity provider, replace `callerIdentity` with one that verifies
 * its tokens: every rule below then applies to the identity it returns.
 */
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { log } from "../core/log.js";
import type { NamespaceAccess } from "../runtime/dependencies.js";
import { bearerToken, identityForToken, LOCAL_IDENTITY, refusedNamespace } from "../library/access-policy.js";
import { isHealthCheck, isServedRoute } from "./routes.js";
import { serverSettings } from "./settings.js";

const { policy, threadHistory } = serverSettings;
if (!policy.secured) {
  log.warn("server_open", { detail: "RECALLGRAPH_API_KEYS is not set: every caller is one local user who may read and write every namespace" });
}

/** The identity of a health check's caller: no key's identity has a ":", so it owns nothing and may touch nothing. */
const HEALTH_CHECK_IDENTITY = "health:check";

/** The caller a request's bearer token stands for (401 without a valid one); the local user on an open server. */
function callerIdentity(request: Request): string {
  if (!policy.secured) return LOCAL_IDENTITY;
  const token = bearerToken(request.headers.get("authorization"));
  const identity = token === undefined ? undefined : identityForToken(policy, token);
  if (identity === undefined) throw new HTTPException(401, { message: "a valid bearer token is required: Authorization: Bearer <key>" });
  return identity;
}

/** The namespaces a run's input names: the retrieval graph reads `namespaces`, the write graph writes `namespace`. */
function accessesOf(input: unknown): NamespaceAccess[] {
  if (typeof input !== "object" || input === null) return [];
  const strings = (value: unknown) => (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === "string");
  const accesses: NamespaceAccess[] = [];
  if ("namespaces" in input) accesses.push({ namespaces: strings(input.namespaces), mode: "read" });
  if ("namespace" in input) accesses.push({ namespaces: strings(input.namespace), mode: "write" });
  return accesses;
}

function refuseForeignNamespaces(identity: string, input: unknown): void {
  for (const access of accessesOf(input)) {
    const refused = refusedNamespace(policy, identity, access);
    if (refused !== undefined) throw new HTTPException(403, { message: `"${identity}" may not ${access.mode} namespace "${refused}"` });
  }
}

/**
 * A run whose answer would stay in a thread's state and history is refused unless the server keeps
 * thread history: there, an answer would outlive the memories it quotes (forget and expiry cannot
 * reach langgraph-api's checkpoints). A stateless run's temporary thread is deleted with its runs.
 */
function refuseKeptAnswers(kwargs: { temporary?: unknown }): void {
  if (threadHistory === "keep" || kwargs.temporary === true) return;
  throw new HTTPException(403, {
    message: "runs on threads are not served here (an answer kept in thread history would outlive a forgotten memory): use a stateless run, POST /runs/wait or /runs/stream without on_completion \"keep\"",
  });
}

/** A webhook would make the server send a run's answer, and requests, to any address a caller names. */
function refuseWebhook(kwargs: { webhook?: unknown }): void {
  if (kwargs.webhook != null) throw new HTTPException(403, { message: "webhooks are not served here: read the answer from the run's response or stream" });
}

/** Marks what a caller creates as theirs, whatever owner the request named, and filters what they see to it. */
function owned(identity: string, value: { metadata?: Record<string, unknown> | null | undefined }) {
  value.metadata = { ...value.metadata, owner: identity };
  return { owner: identity };
}

export const auth = new Auth()
  .authenticate((request) => {
    if (isHealthCheck(request)) return { identity: HEALTH_CHECK_IDENTITY, permissions: [] };
    const identity = callerIdentity(request);
    if (!isServedRoute(request)) throw new HTTPException(403, { message: `${request.method} ${new URL(request.url).pathname} is not served by recallgraph's server` });
    return { identity, permissions: [] };
  })
  .on("threads:create_run", ({ value, user }) => {
    refuseForeignNamespaces(user.identity, value.kwargs.input);
    refuseKeptAnswers(value.kwargs);
    refuseWebhook(value.kwargs);
    return owned(user.identity, value);
  })
  .on("threads:create", ({ value, user }) => owned(user.identity, value))
  .on("threads:update", ({ value, user }) => (value.metadata ? owned(user.identity, value) : { owner: user.identity }))
  .on(["threads:read", "threads:search", "threads:delete"], ({ user }) => ({ owner: user.identity }))
  // The only assistants are the server's own (langgraph-api marks them created_by "system"): nobody creates one.
  .on(["assistants:read", "assistants:search"], () => ({ created_by: "system" }))
  .on("*", ({ event }) => {
    throw new HTTPException(403, { message: `${event} is not allowed on recallgraph's server` });
  });
