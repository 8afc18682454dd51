/** What one LLM step cost: calls made (retries included), tokens, and why it failed if it did. */
export interface LlmCallRecord {
  step: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  ok: boolean;
  error?: string;
}

/** A step that failed and was worked around (a view that threw, a model that fell back to rules). */
export interface Degradation {
  step: string;
  error: string;
}
