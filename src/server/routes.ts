/**
 * The routes of langgraph-api that the served configuration answers: an allowlist, because the server
 * serves whatever its installed version registers, and a route it adds later must not be open before
 * someone has read it. Each route below reaches langgraph-api's storage only through an auth event that
 * applies the owner filter of auth.ts; every other route (and any path not listed) is refused with 403
 * before it runs. Why the refused ones cannot be made safe by a filter is said beside them in docs/server.md.
 */

/** An HTTP method of a served route; a GET route also answers HEAD (Hono maps one to the other). */
type Method = "GET" | "POST" | "PATCH" | "DELETE";

interface ServedRoute {
  method: Method;
  /** Hono's path syntax: `:name` is one segment, `:name?` an optional last one. */
  path: string;
}

/** The health check, answered without a key and without data (`{"ok":true}`). */
export const HEALTH_ROUTE = { method: "GET", path: "/ok" } as const satisfies ServedRoute;

export const SERVED_ROUTES = [
  // Assistants are the server's own, one per graph of langgraph.json: read and search them, no more
  // (creating, changing and deleting are refused in auth.ts, so none holds a caller's configuration).
  { method: "POST", path: "/assistants/search" },
  { method: "POST", path: "/assistants/count" },
  { method: "GET", path: "/assistants/:assistant_id" },
  { method: "GET", path: "/assistants/:assistant_id/graph" },
  { method: "GET", path: "/assistants/:assistant_id/schemas" },
  { method: "GET", path: "/assistants/:assistant_id/subgraphs/:namespace?" },
  { method: "POST", path: "/assistants/:assistant_id/versions" },
  // Stateless runs: the answer goes to the caller and its temporary thread is deleted with its runs.
  { method: "POST", path: "/runs" },
  { method: "POST", path: "/runs/stream" },
  { method: "POST", path: "/runs/wait" },
  { method: "POST", path: "/runs/batch" },
  // Threads and their runs: every one of these is filtered to the caller's own threads.
  { method: "POST", path: "/threads" },
  { method: "POST", path: "/threads/search" },
  { method: "POST", path: "/threads/count" },
  { method: "GET", path: "/threads/:thread_id" },
  { method: "PATCH", path: "/threads/:thread_id" },
  { method: "DELETE", path: "/threads/:thread_id" },
  { method: "POST", path: "/threads/:thread_id/copy" },
  { method: "GET", path: "/threads/:thread_id/state" },
  { method: "POST", path: "/threads/:thread_id/state" },
  { method: "GET", path: "/threads/:thread_id/state/:checkpoint_id" },
  { method: "POST", path: "/threads/:thread_id/state/checkpoint" },
  { method: "GET", path: "/threads/:thread_id/history" },
  { method: "POST", path: "/threads/:thread_id/history" },
  { method: "GET", path: "/threads/:thread_id/runs" },
  { method: "POST", path: "/threads/:thread_id/runs" },
  { method: "POST", path: "/threads/:thread_id/runs/stream" },
  { method: "POST", path: "/threads/:thread_id/runs/wait" },
  { method: "GET", path: "/threads/:thread_id/runs/:run_id" },
  { method: "DELETE", path: "/threads/:thread_id/runs/:run_id" },
  { method: "GET", path: "/threads/:thread_id/runs/:run_id/join" },
  { method: "GET", path: "/threads/:thread_id/runs/:run_id/stream" },
  { method: "POST", path: "/threads/:thread_id/runs/:run_id/cancel" },
] as const satisfies readonly ServedRoute[];

/** A route pattern as a regular expression over a decoded path. */
function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .slice(1)
    .map((segment) => (segment.endsWith("?") ? "(?:/[^/]+)?" : segment.startsWith(":") ? "/[^/]+" : `/${segment.replace(/[.*+^${}()|[\]\\]/g, "\\$&")}`))
    .join("");
  return new RegExp(`^${source}$`);
}

const compiled = SERVED_ROUTES.map((route) => ({ method: route.method, pattern: patternOf(route.path) }));
const healthPattern = patternOf(HEALTH_ROUTE.path);

/**
 * The path a request is routed by, as Hono reads it: the URL's path, percent-decoded like `decodeURI`
 * (which leaves an encoded "/" encoded). Undefined when it cannot be decoded: such a request is refused.
 */
function routedPath(request: Request): string | undefined {
  const { pathname } = new URL(request.url);
  try {
    return pathname.includes("%") ? decodeURI(pathname) : pathname;
  } catch {
    return undefined;
  }
}

function matches(request: Request, method: Method, pattern: RegExp): boolean {
  const path = routedPath(request);
  const asked = request.method === "HEAD" ? "GET" : request.method;
  return path !== undefined && asked === method && pattern.test(path);
}

/** Whether the request is the health check. */
export function isHealthCheck(request: Request): boolean {
  return matches(request, HEALTH_ROUTE.method, healthPattern);
}

/** Whether the request is for a route of SERVED_ROUTES. */
export function isServedRoute(request: Request): boolean {
  return compiled.some((route) => matches(request, route.method, route.pattern));
}
