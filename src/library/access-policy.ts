/**
 * Who may use a served surface and which namespaces each caller may touch. Pure rules, read from the
 * environment once; every surface that authenticates callers (the LangGraph server in server/, the MCP
 * server in mcp/) applies the same ones, so one RECALLGRAPH_API_KEYS means the same thing everywhere.
 *
 * - `RECALLGRAPH_API_KEYS="token1:alice,token2:bob"`: bearer tokens and the identity each stands for.
 *   An identity reads and writes its own namespace and those under it (`alice`, `alice/notes`).
 * - `RECALLGRAPH_SHARED_NAMESPACES="team,handbook"`: namespaces (and those under them) every identity
 *   may read; nobody writes them through a server.
 * With no keys a server is open: one local caller who may touch every namespace.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readEnvironment, readVariable, type Environment } from "../core/env.js";
import { ValidationError } from "../core/errors.js";
import type { NamespaceAccess } from "../runtime/dependencies.js";
import { NamespaceSchema } from "../memory/entry.js";

/** The identity every caller has on an open server. */
export const LOCAL_IDENTITY = "local";

export interface AccessPolicy {
  /** False when no keys are configured: every caller is the local user. */
  secured: boolean;
  /** SHA-256 of each token with its identity (digests compare in constant time). */
  keys: ReadonlyArray<{ digest: Buffer; identity: string }>;
  shared: readonly string[];
}

export function accessPolicyFromEnv(env: Environment = readEnvironment()): AccessPolicy {
  const keys = parseKeys(readVariable(env, "RECALLGRAPH_API_KEYS"));
  const shared = (readVariable(env, "RECALLGRAPH_SHARED_NAMESPACES") ?? "")
    .split(",")
    .map((namespace) => namespace.trim())
    .filter(Boolean);
  return { secured: keys.length > 0, keys, shared };
}

function parseKeys(text: string | undefined): AccessPolicy["keys"] {
  if (text === undefined) return [];
  const keys: Array<{ digest: Buffer; identity: string }> = [];
  for (const [index, pair] of text.split(",").entries()) {
    const at = pair.lastIndexOf(":");
    const token = pair.slice(0, at).trim();
    const identity = pair.slice(at + 1).trim();
    // The token itself is never echoed: an error message may end up in a log.
    if (at < 0 || token.length < 8) throw new ValidationError("RECALLGRAPH_API_KEYS", `entry ${index + 1}: expected "token:identity" with a token of 8 or more characters`);
    if (!NamespaceSchema.safeParse(identity).success || identity.includes("/")) {
      throw new ValidationError("RECALLGRAPH_API_KEYS", `entry ${index + 1}: identity "${identity}" must be a namespace name without "/"`);
    }
    const digest = digestOf(token);
    if (keys.some((key) => key.digest.equals(digest))) throw new ValidationError("RECALLGRAPH_API_KEYS", `entry ${index + 1}: the same token is listed twice`);
    keys.push({ digest, identity });
  }
  return keys;
}

function digestOf(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** The bearer token of an Authorization header, if it has one. */
export function bearerToken(header: string | null | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/** The identity a bearer token stands for, or undefined. Every key is compared, so timing tells nothing. */
export function identityForToken(policy: AccessPolicy, token: string): string | undefined {
  const digest = digestOf(token);
  let found: string | undefined;
  for (const key of policy.keys) if (timingSafeEqual(key.digest, digest)) found ??= key.identity;
  return found;
}

/** The first namespace of `access` that `identity` may not touch, or undefined when it may touch them all. */
export function refusedNamespace(policy: AccessPolicy, identity: string, access: NamespaceAccess): string | undefined {
  if (!policy.secured) return undefined;
  const within = (namespace: string, root: string) => namespace === root || namespace.startsWith(`${root}/`);
  const allowed = (namespace: string) =>
    within(namespace, identity) || (access.mode === "read" && policy.shared.some((root) => within(namespace, root)));
  return access.namespaces.find((namespace) => !allowed(namespace));
}
