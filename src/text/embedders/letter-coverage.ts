/**
 * Which texts a word-piece model can read, from its own vocabulary. An English model's vocabulary
 * (all-MiniLM-L6-v2's, BERT's) holds every Latin letter but only a few hundred of the thousands of
 * Chinese characters: in CMRC 2018's paragraphs about 70% of the Han characters have no piece and
 * become [UNK], so the vector is of what is left, and its dense scores are noise. A multilingual
 * vocabulary covers its scripts, and its texts stay trusted.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * The share of a text's letters a model may lack a piece for and still be trusted on it. In a script
 * written without spaces each character is a word or a morpheme, so a tenth of them lost is already
 * another sentence; a text in a script the vocabulary covers loses none.
 */
const UNREADABLE_SHARE = 0.1;

const TokenizerSchema = z
  .object({
    model: z
      .object({
        type: z.string().describe("WordPiece, BPE, Unigram..."),
        vocab: z.unknown().describe("WordPiece: piece -> id"),
        continuing_subword_prefix: z.string().optional().describe("what marks a piece inside a word (##)"),
      })
      .loose(),
    normalizer: z
      .object({
        type: z.string(),
        lowercase: z.boolean().optional(),
        strip_accents: z.boolean().nullable().optional().describe("null: as lowercase says"),
      })
      .loose()
      .nullable()
      .optional(),
  })
  .loose();

/**
 * Whether a text is one the model in `folder` can read: at most a tenth of its letters (as its
 * normaliser writes them) lack a piece of their own in the vocabulary. Known only for WordPiece
 * tokenizers (BERT's family, which maps such letters to [UNK]); for any other, or a folder without a
 * readable tokenizer.json, every text is trusted, as before the model is known.
 */
export function readableBy(folder: string): (text: string) => boolean {
  const file = path.join(folder, "tokenizer.json");
  if (!existsSync(file)) return () => true;
  let parsed: z.infer<typeof TokenizerSchema>;
  try {
    const result = TokenizerSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!result.success) return () => true;
    parsed = result.data;
  } catch {
    return () => true;
  }
  const vocab = parsed.model.vocab;
  if (parsed.model.type !== "WordPiece" || typeof vocab !== "object" || vocab === null) return () => true;
  const normalize = normalizerOf(parsed.normalizer);
  if (!normalize) return () => true;
  const letters = lettersOf(Object.keys(vocab), parsed.model.continuing_subword_prefix ?? "##");
  return (text) => {
    const written = normalize(text).match(LETTER) ?? [];
    const unreadable = written.filter((letter) => !letters.has(letter)).length;
    return unreadable <= written.length * UNREADABLE_SHARE;
  };
}

const LETTER = /\p{L}/gu;

/** The letters that are a piece on their own, at a word's start or inside it. */
function lettersOf(pieces: readonly string[], prefix: string): Set<string> {
  const letters = new Set<string>();
  for (const piece of pieces) {
    const bare = piece.startsWith(prefix) ? piece.slice(prefix.length) : piece;
    if ([...bare].length === 1 && /^\p{L}$/u.test(bare)) letters.add(bare);
  }
  return letters;
}

/** What BERT's normaliser does to letters: lower-cases, and strips accents unless told otherwise. */
function normalizerOf(normalizer: z.infer<typeof TokenizerSchema>["normalizer"]): ((text: string) => string) | undefined {
  if (!normalizer) return (text) => text;
  if (normalizer.type !== "BertNormalizer") return undefined;
  const lowercase = normalizer.lowercase ?? true;
  const stripAccents = normalizer.strip_accents ?? lowercase;
  return (text) => {
    const cased = lowercase ? text.toLowerCase() : text;
    return stripAccents ? cased.normalize("NFD").replace(/\p{M}/gu, "") : cased;
  };
}
