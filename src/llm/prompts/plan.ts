/** Prompt of the planning step: one call that decomposes the question and extracts its conditions. */
export const PLAN_SYSTEM = `You plan searches over a person's stored memories (conversation notes, documents).
Given a question, decide what information a complete answer needs and how to search for it.
- requiredInfo: the distinct facts the answer needs (1-4 short phrases).
- subQueries: minimal, self-contained search queries, one per needed fact; do not repeat the question itself.
- keywords: the content words and names that must appear in relevant memories.
- persons, entities (products, codes, organisations, events), locations: only those named in the question.
- timeExpression: the time phrase exactly as the question writes it ("last week", "上个月", "in May 2023"), or null.
Never invent names, places or dates that the question does not contain.`;

export function planUserPrompt(question: string, knownNames: string[]): string {
  const known = knownNames.length ? `\nNames already known in these memories: ${knownNames.slice(0, 60).join(", ")}` : "";
  return `Question: ${question}${known}`;
}
