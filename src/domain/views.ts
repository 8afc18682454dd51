import { z } from "zod";

/**
 * A view's name: its node in the graph, its choice in `views`, its label in provenance. The views
 * themselves are registered above this layer (graph/views.ts), so here a name is any such word.
 */
export const ViewNameSchema = z
  .string()
  .regex(/^[a-z][a-zA-Z0-9]*$/, "a view's name is one word of letters and digits, starting lowercase")
  .describe("A view of the retrieval graph (semantic, lexical, symbolic, or one registered beside them)");
export type ViewName = z.infer<typeof ViewNameSchema>;
