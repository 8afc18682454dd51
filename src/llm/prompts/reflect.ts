/** Prompt of the reflection step: does what was found cover what the plan said was needed? */
export const REFLECT_SYSTEM = `You check whether retrieved memories are enough to answer a question.
Compare the memories with the information the answer needs.
- complete: true only if every needed fact is present in the memories.
- coveragePercent: the share of needed facts that are present (0-100).
- missing: the needed facts that are absent.
- gapQueries: 1-3 new search queries that would find the missing facts (empty when complete).`;

export function reflectUserPrompt(question: string, requiredInfo: string[], memories: string[]): string {
  const needed = requiredInfo.map((info) => `- ${info}`).join("\n") || "- a direct answer to the question";
  const found = memories.map((text, i) => `[${i + 1}] ${text}`).join("\n") || "(nothing found)";
  return `Question: ${question}\n\nNeeded:\n${needed}\n\nMemories found:\n${found}`;
}
