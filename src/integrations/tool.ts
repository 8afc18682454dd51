import { tool } from "@langchain/core/tools";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import type { RetrievalGraph } from "../graph/graph.js";
import { MEMORY_ACTIONS, RecallArgsSchema, recallRequest, recalledLines } from "../library/memory-actions.js";
import { retrieve } from "../library/retrieve.js";
import { parseOrThrow } from "../core/errors.js";

export interface RecallToolOptions {
  graph: RetrievalGraph;
  /** Whose memories the tool reads. Fixed by the application, never chosen by the model. */
  namespace: string | string[];
  configurable?: RetrievalConfigInput;
  now?: () => Date;
  name?: string;
  description?: string;
}

const recallAction = MEMORY_ACTIONS[0];

/**
 * The read-only recall tool over a retrieval graph alone (createMemoryTools gives an agent the writing
 * tools too): the model asks a question, the tool answers with the memories that settle it, one per
 * line with its date and id. The namespace is bound here, so a prompt cannot cross it.
 */
export function createRecallTool(options: RecallToolOptions) {
  return tool(
    async (args: unknown) => {
      const request = recallRequest(options.namespace, (options.now ?? (() => new Date()))(), parseOrThrow(RecallArgsSchema, args, "arguments"));
      const output = await retrieve(options.graph, request, { configurable: options.configurable ?? {} });
      return output.results.length ? recalledLines(output.results) : "No stored memory matches.";
    },
    { name: options.name ?? recallAction.name, description: options.description ?? recallAction.description, schema: RecallArgsSchema },
  );
}
