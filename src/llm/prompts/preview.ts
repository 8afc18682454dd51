/** How much of a memory's text a prompt shows the model (reflection, rerank): enough to judge, cheap in tokens. */
export const MEMORY_PREVIEW_CHARS = 400;
