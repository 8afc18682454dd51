import { InProcessLeases } from "../stores/origin-lease.js";
import type { MemoryStore } from "../stores/port.js";

/**
 * Saves into one namespace of a store, one after another in this process, in the order they were
 * called: dialogue saves and note writes, each of which reads what the namespace already holds before
 * it writes. A dialogue save writes its session's earlier memories again with its own turns added
 * (dialogue-continuation.ts), and a note that says a change links the note it replaces
 * (note-changes.ts): two saves at once would each read the namespace without the other's writes. An
 * agent whose tool calls of one step run side by side is that case. Other namespaces' saves do not
 * wait. Saves by several processes at once are not ordered (docs/architecture.md).
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
