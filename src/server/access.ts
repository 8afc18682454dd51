/**
 * The served graphs' side of access control: who the caller of a run is, and the guard that holds each
 * run to its caller's namespaces. The rules themselves (keys, identities, shared namespaces) are the
 * library's (library/access-policy.ts), shared with the MCP server; the auth handler (auth.ts) and the
 * served graphs (graphs.ts) both apply them, so a run that reached a graph by any route is still held
 * to its caller's namespaces.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { AccessDeniedError } from "../core/errors.js";
import type { NamespaceGuard } from "../runtime/dependencies.js";
import { refusedNamespace, type AccessPolicy } from "../library/access-policy.js";

/** The authenticated caller's identity as the server stamps it on a run's configuration. */
export function callerOf(config: RunnableConfig | undefined): string | undefined {
  const user: unknown = config?.configurable?.langgraph_auth_user;
  if (typeof user !== "object" || user === null || !("identity" in user)) return undefined;
  return typeof user.identity === "string" ? user.identity : undefined;
}

/**
 * The served graphs' guard: on a secured server a run without an authenticated caller, or naming a
 * namespace its caller may not touch, is refused before anything is read or written.
 */
export function namespaceGuard(policy: AccessPolicy): NamespaceGuard {
  return (access, config) => {
    if (!policy.secured) return;
    const identity = callerOf(config);
    const refused = identity === undefined ? access.namespaces[0] : refusedNamespace(policy, identity, access);
    if (refused !== undefined) throw new AccessDeniedError(identity ?? "an unauthenticated caller", refused, access.mode);
  };
}
