/** Prompt of the optional rerank step: a 0-10 relevance score per passage. */
export const RERANK_SYSTEM = `You score how well each numbered passage helps answer the question,
from 0 (irrelevant) to 10 (answers it directly). Score every passage, by its index.`;

export function rerankUserPrompt(question: string, passages: string[]): string {
  return `Question: ${question}\n\nPassages:\n${passages.map((text, i) => `[${i}] ${text}`).join("\n")}`;
}
