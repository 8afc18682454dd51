/** Sentence boundaries by the runtime's Unicode segmentation (UAX #29): "e.g.", "1.5 T" and "vs." stay inside their sentence. */
const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });

/** The sentences of `text`, trimmed, empty ones left out; a line break ends a sentence (a title before its text). */
export function sentencesOf(text: string): string[] {
  return [...SENTENCES.segment(text)].map(({ segment }) => segment.trim()).filter((sentence) => sentence !== "");
}

/** Words as the embedders with a length limit count them: runs of non-space characters. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
