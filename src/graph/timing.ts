/** Runs a node body and adds its wall time to the run account under `node`. */
export async function timed<T extends object>(node: string, body: () => Promise<T>): Promise<T & { nodeMs: Record<string, number> }> {
  const started = performance.now();
  const update = await body();
  return { ...update, nodeMs: { [node]: Math.round((performance.now() - started) * 100) / 100 } };
}
