import type { RunnableConfig } from "@langchain/core/runnables";
import { parseOrThrow } from "../core/errors.js";
import { buildDialogue, commitDialogue, prepareDialogue } from "../ingest/dialogue-ingest.js";
import { parseDialogue } from "../ingest/dialogue.js";
import { oneSaveAtATime } from "../ingest/save-queue.js";
import { writeMemories } from "../ingest/write-memories.js";
import { heldIds } from "../stores/memory-operations.js";
import type { GraphDependencies, NamespaceGuard } from "../runtime/dependencies.js";
import { RememberInputSchema, type RememberStateValue } from "../graph/remember-state.js";

/**
 * The write graph's one node: refuses a namespace the caller may not write, then writes the
 * memories, the dialogue's memories and forgets the ids, in that order. Each input is validated in
 * full (every id to forget found, the dialogue built, embedded and its turn ids checked against the
 * store) before anything is written; errors name the field.
 */
export function rememberNode(dependencies: () => Promise<GraphDependencies>, guard?: NamespaceGuard) {
  return async (state: RememberStateValue, config?: RunnableConfig) => {
    const input = parseOrThrow(
      RememberInputSchema,
      { namespace: state.namespace, memories: state.memories ?? undefined, dialogue: state.dialogue ?? undefined, forget: state.forget ?? undefined },
      "input",
    );
    guard?.({ namespaces: [input.namespace], mode: "write" }, config);
    const dialogue = input.dialogue === undefined ? undefined : parseDialogue(input.dialogue, "input.dialogue");
    const { store, embedder, model } = await dependencies();
    // Every id to forget is checked before anything is written: an unknown one refuses the whole call.
    const forget = input.forget ? await heldIds(store, input.namespace, input.forget, "input.forget") : [];
    const { written, built } = await oneSaveAtATime(store, input.namespace, async () => {
      const prepared = dialogue ? await prepareDialogue(store, embedder, await buildDialogue(input.namespace, dialogue, { store, ...(model ? { model } : {}) })) : undefined;
      const written = input.memories ? (await writeMemories(store, embedder, input.namespace, input.memories, { linkChanges: true })).map((entry) => entry.id) : [];
      return { written, built: prepared ? await commitDialogue(store, prepared) : undefined };
    });
    const deleted = forget.length ? await store.delete(input.namespace, forget) : 0;
    return {
      namespace: input.namespace,
      written: [...written, ...(built?.ids ?? [])],
      deleted,
      retired: built?.retired ?? 0,
      memories: null,
      dialogue: null,
      forget: null,
    };
  };
}
