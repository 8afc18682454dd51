import { isCommand } from "@langchain/langgraph";
import { kindOf, ValidationError } from "../core/errors.js";

/**
 * `graph`, refusing a run input that is not an object with one ValidationError. LangGraph checks an
 * input's shape before any node runs and throws what its parser threw (zod's issues as multi-line JSON,
 * or an InvalidUpdateError with a troubleshooting link), where every other bad input gets one line naming
 * the field. The check sits in front of LangGraph's own input validation (`_validateInput`, protected,
 * hence the cast), so it covers every way a run starts: invoke, stream and the server. A null input
 * (resume from a checkpoint) and a Command pass as before.
 */
export function refusingNonObjectInput<G extends object>(graph: G): G {
  const target = graph as unknown as { _validateInput(input: unknown): Promise<unknown> };
  const validate = target._validateInput.bind(graph);
  target._validateInput = async (input: unknown) => {
    if (input != null && !isCommand(input) && (typeof input !== "object" || Array.isArray(input))) {
      throw new ValidationError("input", `input must be an object of the graph's input fields, got ${kindOf(input)}`);
    }
    return validate(input);
  };
  return graph;
}
