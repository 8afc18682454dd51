import { tool } from "@langchain/core/tools";
import { MEMORY_ACTIONS, type ActionContext } from "../library/memory-actions.js";

export type MemoryToolsOptions = ActionContext;

/**
 * An agent's memory tools for one namespace, bound here (no argument can name another): recall,
 * save, save a dialogue, forget and list, for `createReactAgent` or any tool-calling model. Bad
 * arguments come back to the model as a one-line error naming the field.
 */
export function createMemoryTools(context: MemoryToolsOptions) {
  return MEMORY_ACTIONS.map((action) =>
    tool((args: unknown) => action.run(context, args), { name: action.name, description: action.description, schema: action.schema }),
  );
}
