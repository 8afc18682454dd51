import type { MemorySource } from "../memory/entry.js";
import type { Provenance } from "./hits.js";

/** A returned memory: the entry (text cut to the content cap), its fused score and how it was found. */
export interface RetrievalResult {
  id: string;
  namespace: string;
  text: string;
  timestamp: string;
  persons: string[];
  speaker?: string;
  entities: string[];
  location?: string;
  topic?: string;
  source?: MemorySource;
  score: number;
  rerankScore?: number;
  provenance: Provenance;
}
