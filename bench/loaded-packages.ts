/**
 * Which packages a Node process loads: `--import LOADED_MODULES_IMPORT` makes it print every module
 * it loads from node_modules on stderr, and `packageCounts` reads them back, per package. For the
 * start-up benchmark (bench/cli-start.ts) and the test that holds what each command loads.
 */
const HOOKS = `export async function load(url, context, next) {
  if (url.includes("/node_modules/")) process.stderr.write("loaded-module " + url + "\\n");
  return next(url, context);
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

/** The `--import` argument that registers the hook. */
export const LOADED_MODULES_IMPORT = `data:text/javascript,${encodeURIComponent(REGISTER)}`;

/** Modules loaded per package (`@scope/name` or `name`), most first, from the hooked process's stderr. */
export function packageCounts(stderr: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const match of stderr.matchAll(/^loaded-module .*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) {
    const name = match[1] ?? "";
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
}
