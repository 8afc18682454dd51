import { InProcessLeases } from "../stores/origin-lease.js";
import type { MemoryStore } from "../stores/port.js";

/**
 * Dialogue saves into one namespace of a store, one after another in this process, in the order they
 * were called. A save reads what its session already holds and writes those memories again with its
 * own turns added (dialogue-continuation.ts): two saves at once would each read the session without
 * the other's turns, and the turns saved second would lack the first's as context. An agent that saves
 * each turn by a tool call of its own, its calls run side by side, is that case. Other namespaces'
 * saves do not wait. Saves by several processes at once are not ordered (docs/architecture.md).
 */
const savesByStore = new WeakMap<MemoryStore, InProcessLeases>();

export async function oneSaveAtATime<T>(store: MemoryStore, namespace: string, save: () => Promise<T>): Promise<T> {
  let saves = savesByStore.get(store);
  if (!saves) {
    saves = new InProcessLeases();
    savesByStore.set(store, saves);
  }
  const done = await saves.acquire(namespace);
  try {
    return await save();
  } finally {
    await done();
  }
}
