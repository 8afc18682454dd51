/**
 * The LangGraph server's auth handler (`auth.path` in langgraph.json). Callers authenticate with
 * `Authorization: Bearer <token>` against RECALLGRAPH_API_KEYS; each run is held to its caller's
 * namespaces before it starts (403), and threads, runs and assistants a caller creates are theirs
 * alone (others get 404 or an empty search). LangGraph's own key-value store (`/store/*`), which
 * recallgraph does not use, is scoped to namespaces that start with the caller's identity.
 * To use another identity provider, replace `authenticate` with one that verifies its tokens and
 * returns `{ identity }`: the rules below then apply to that identity unchanged.
 */
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { log } from "../core/log.js";
import type { NamespaceAccess } from "../graph/dependencies.js";
import { accessPolicyFromEnv, bearerToken, identityForToken, LOCAL_IDENTITY, refusedNamespace } from "../library/access-policy.js";

const policy = accessPolicyFromEnv();
if (!policy.secured) {
  log.warn("server_open", { detail: "RECALLGRAPH_API_KEYS is not set: every caller is one local user who may read and write every namespace" });
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

/** Marks what a caller creates as theirs and filters what they see to what is theirs. */
function owned(identity: string, value: { metadata?: Record<string, unknown> | null | undefined }) {
  value.metadata = { ...value.metadata, owner: identity };
  return { owner: identity };
}

export const auth = new Auth()
  .authenticate((request) => {
    if (!policy.secured) return { identity: LOCAL_IDENTITY, permissions: [] };
    const token = bearerToken(request.headers.get("authorization"));
    const identity = token === undefined ? undefined : identityForToken(policy, token);
    if (identity === undefined) throw new HTTPException(401, { message: "a valid bearer token is required: Authorization: Bearer <key>" });
    return { identity, permissions: [] };
  })
  .on("threads:create_run", ({ value, user }) => {
    refuseForeignNamespaces(user.identity, value.kwargs.input);
    return owned(user.identity, value);
  })
  .on("threads:create", ({ value, user }) => owned(user.identity, value))
  .on("threads", ({ user }) => ({ owner: user.identity }))
  .on(["assistants:read", "assistants:search"], () => true)
  .on("assistants:create", ({ value, user }) => owned(user.identity, value))
  .on("assistants", ({ user }) => ({ owner: user.identity }))
  .on("crons", () => false)
  .on("store", ({ value, user }) => {
    const namespace = value.namespace ?? [];
    // A search or listing without a prefix is narrowed to the caller's own; any other prefix is refused.
    if (namespace.length === 0) value.namespace = [user.identity];
    else if (namespace[0] !== user.identity) throw new HTTPException(403, { message: `"${user.identity}" may only use store namespaces under ["${user.identity}"]` });
    return true;
  });
