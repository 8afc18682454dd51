import { loadLancedb } from "../../src/eval/lancedb-peer.js";

/** The LanceDB peer's row name where its package loads here, for the lists of a `--peers` run's rows. */
export async function lancedbRows(): Promise<string[]> {
  return "missing" in (await loadLancedb()) ? [] : ["LanceDB hybrid"];
}
