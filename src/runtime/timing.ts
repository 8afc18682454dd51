/** Wall time per node, ms. */
export type NodeMs = Record<string, number>;

/** Runs a node body and adds its wall time to the run account under `node`. */
export async function timed<T extends object>(node: string, body: () => Promise<T>): Promise<T & { nodeMs: NodeMs }> {
  const started = performance.now();
  const update = await body();
  return { ...update, nodeMs: { [node]: Math.round((performance.now() - started) * 100) / 100 } };
}

/** Two accounts of node time added up (a node that runs in several rounds counts every time). */
export function addNodeMs(current: NodeMs, update: NodeMs): NodeMs {
  const sum = { ...current };
  for (const [node, ms] of Object.entries(update)) sum[node] = (sum[node] ?? 0) + ms;
  return sum;
}
