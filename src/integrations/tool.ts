import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import type { RetrievalGraph } from "../graph/graph.js";
import { retrieve } from "../library/retrieve.js";

export interface RecallToolOptions {
  graph: RetrievalGraph;
  /** Whose memories the tool reads. Fixed by the application, never chosen by the model. */
  namespace: string | string[];
  configurable?: RetrievalConfigInput;
  now?: () => Date;
  name?: string;
  description?: string;
}

/**
 * recallgraph as an agent tool: the model asks a question, the tool answers with the memories that
 * settle it, one per line with its date. The namespace is bound here, so a prompt cannot cross it.
 */
export function createRecallTool(options: RecallToolOptions) {
  return tool(
    async ({ question }) => {
      const output = await retrieve(
        options.graph,
        { question, namespace: options.namespace, now: (options.now ?? (() => new Date()))() },
        options.configurable ?? {},
      );
      if (output.results.length === 0) return "No stored memory matches.";
      return output.results.map((result) => `- [${result.timestamp.slice(0, 10)}] ${result.text}`).join("\n");
    },
    {
      name: options.name ?? "recall_memories",
      description:
        options.description ??
        "Search the user's long-term memories (past conversations, notes, documents). Ask a full natural-language question; relative dates like 'last week' are understood.",
      schema: z.object({ question: z.string().min(1).describe("What to look up, as a question") }),
    },
  );
}
