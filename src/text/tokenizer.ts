/**
 * The one tokenizer of recallgraph. Every lexical path (the sqlite FTS5 index, the Qdrant sparse
 * vectors, the rule-based planner) indexes documents and queries with `tokenize`, so a term written
 * one way always meets itself the other way.
 *
 * Tokens only ever contain letters, combining marks, digits, `_`, `.`, `@` and `-`
 * (`TOKEN_PATTERN`): no whitespace, quotes, `*`, `(`, `:` or `^`. A store still quotes every token
 * before handing it to FTS5 (a token like `near` or `or-2` must stay a term, not an operator), but
 * no user text can smuggle query syntax through a token.
 */
import { stemmer } from "stemmer";
import { eng as englishStopwordList } from "stopword";
import { RecentMap } from "../core/recent-map.js";

/** Every token matches this: letters, marks, digits and `_ . @ -`, nothing else. */
export const TOKEN_PATTERN = /^[\p{L}\p{M}\p{N}_.@-]+$/u;

/** Longest token, in code points. Longer identifiers (hashes, blobs) are cut, identically for documents and queries. */
export const MAX_TOKEN_CHARS = 64;

/**
 * Words the `stopword` English list lacks but questions are full of. "When did Caroline..." is how a
 * third of LoCoMo's questions start; as query terms "when"/"why"/"does" match random memories that
 * happen to contain them and outvote the one content word that matters. A few pronouns missing
 * from the list ("she", "us", "hers"...) are added for the same reason its other pronouns are there.
 * "not" goes too: negated auxiliaries ("didn't") are dropped whole, so keeping "not" would make
 * "did not" and "didn't" index differently.
 */
const EXTRA_ENGLISH_STOPWORDS = [
  "when", "why", "whom", "whose", "does", "doing", "done", "not",
  "she", "hers", "us", "ours", "its", "myself", "yourself", "herself", "itself", "ourselves", "themselves",
];

/** Lower-case English stopwords: the `stopword` package's English list plus `EXTRA_ENGLISH_STOPWORDS`. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([...englishStopwordList, ...EXTRA_ENGLISH_STOPWORDS]);

/**
 * Chinese and Japanese function words, removed when the segmenter yields them as whole words (never
 * as characters inside a word: 目的, 现在, 了解 keep their 的, 在, 了). Kept deliberately small:
 * structural particles, aspect markers, sentence-final particles, the copula, common pronouns
 * (English pronouns are stopwords too) and question words; content words like 有 or 多少 stay.
 */
export const CJK_STOPWORDS: ReadonlySet<string> = new Set([
  // Chinese: particles, copula, conjunctions, pronouns, question words
  "的", "了", "是", "在", "吗", "呢", "吧", "啊", "呀", "哦", "嗯", "着", "过", "地", "得", "之",
  "和", "与", "及", "或", "也", "都", "就", "而", "把", "被", "给", "这", "那", "这个", "那个",
  "我", "你", "您", "他", "她", "它", "我们", "你们", "他们", "她们", "它们", "什么", "怎么", "哪", "哪里", "谁",
  "多少", "几", "为什么", "如何", "怎样", "怎么样", "哪个", "哪些", "多久", "何时",
  // Japanese: case and topic particles, copula and polite auxiliaries (the segmenter splits ました as ま|した)
  "は", "が", "を", "に", "へ", "で", "と", "も", "の", "や", "か", "ね", "よ", "な",
  "です", "ます", "でした", "ました", "ま", "した", "だ", "た", "て", "私",
]);

// Scripts written without spaces between words. CJK (incl. Hangul, whose words carry attached
// particles) get segmenter words plus character bigrams; South-East Asian scripts get segmenter words.
const CJK_CHARS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\u3005\u3006`;
const SEA_CHARS = String.raw`\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}`;
// `v` flag (set subtraction) is built from a string: TypeScript's ES2022 target rejects it in a literal.
const PIECE_PATTERN = new RegExp(
  `(?<cjk>[${CJK_CHARS}]+)|(?<sea>[${SEA_CHARS}]+)|(?<word>[[\\p{L}\\p{M}\\p{N}_'\u2019.@\\-]--[${CJK_CHARS}${SEA_CHARS}]]+)`,
  "gv",
);
/** "wait...what", "yes--no": repeated dots or hyphens separate words rather than join an identifier. */
const RUN_SEPARATOR = /\.{2,}|-{2,}/;
const EDGE_CHARACTERS = new Set(["_", ".", "@", "'", "\u2019", "-"]);
const COMBINING_MARK = /^\p{M}$/u;
const APOSTROPHES = /['\u2019]/g;
const HAS_APOSTROPHE = /['\u2019]/;
/** A digit, `_`, `@` or an inner `.` marks an identifier or a number: kept whole and unstemmed. */
const IDENTIFIER_MARK = /[\p{N}_@.]/u;
const ASCII_WORD = /^[a-z]+$/;
const NON_ASCII = /[^\x00-\x7f]/;
const LATIN_WORD = /^[\p{Script=Latin}\p{M}'-]+$/u;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const HAS_LETTER = /\p{L}/u;
const COMBINING_MARKS = /\p{M}+/gu;
const HIRAGANA_ONLY = /^\p{Script=Hiragana}+$/u;
/** Thousands separators: "1,000" is the number 1000, not the tokens 1 and 000. */
const GROUPED_NUMBER = /\b\d{1,3}(?:,\d{3})+\b/g;

// One segmenter for all calls: constructing one costs far more than segmenting a sentence.
// ICU picks its word dictionary by script, not by locale, so "zh" segments Japanese just as well.
const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

// Porter stems of recently seen words. Bounded so a 100k-entry ingest of open-vocabulary text cannot
// grow it without limit; a natural vocabulary mostly fits.
const stemCache = new RecentMap<string, string>(50_000);

function cachedStem(word: string): string {
  let stem = stemCache.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    stemCache.set(word, stem);
  }
  return stem;
}

/**
 * Strips `_ . @ ' -` from both ends, and combining marks from the start (a mark after a space or
 * punctuation is an orphan). A loop, not a regex: it runs on every word and is the hot path.
 */
function trimEdges(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end) {
    const char = word.charAt(start);
    if (EDGE_CHARACTERS.has(char) || (char >= "\u0300" && COMBINING_MARK.test(char))) start++;
    else break;
  }
  while (end > start && EDGE_CHARACTERS.has(word.charAt(end - 1))) end--;
  return start === 0 && end === word.length ? word : word.slice(start, end);
}

function removeApostrophes(word: string): string {
  return HAS_APOSTROPHE.test(word) ? word.replace(APOSTROPHES, "") : word;
}

function limitLength(token: string): string {
  if (token.length <= MAX_TOKEN_CHARS) return token;
  return Array.from(token).slice(0, MAX_TOKEN_CHARS).join("");
}

/**
 * Removes English contraction and possessive tails. Returns undefined for negated auxiliaries
 * ("didn't", "can't"), which are function words whole. "Caroline's" -> "Caroline", "they're" -> "they".
 */
function stripContraction(word: string): string | undefined {
  if (!HAS_APOSTROPHE.test(word)) return word;
  const normalized = word.replace(APOSTROPHES, "'");
  if (/n't$/i.test(normalized)) return undefined;
  return normalized.replace(/'(?:s|ll|re|ve|d|m)$|(?<=s)'$/i, "");
}

type PieceKind = "word" | "cjk" | "sea";

/** Calls `visit` for each run of word characters, CJK characters or South-East Asian characters, in order. */
function forEachPiece(text: string, visit: (kind: PieceKind, piece: string, index: number) => void): void {
  for (const match of text.matchAll(PIECE_PATTERN)) {
    const groups = match.groups;
    if (!groups) continue;
    if (groups.cjk !== undefined) visit("cjk", groups.cjk, match.index);
    else if (groups.sea !== undefined) visit("sea", groups.sea, match.index);
    else if (groups.word !== undefined) visit("word", groups.word, match.index);
  }
}

function normalizeText(text: string): string {
  return text.normalize("NFKC").replace(GROUPED_NUMBER, (number) => number.replaceAll(",", ""));
}

/** The index term of one plain (non-identifier) lower-case word, or undefined when it is a stopword. */
function plainTerm(word: string): string | undefined {
  let folded = word;
  // Fold Latin diacritics (naïve -> naive, résumé -> resume). Only Latin: marks carry meaning elsewhere.
  if (NON_ASCII.test(folded) && LATIN_WORD.test(folded)) folded = folded.normalize("NFD").replace(COMBINING_MARKS, "");
  if (!HAS_LETTER_OR_DIGIT.test(folded) || ENGLISH_STOPWORDS.has(folded)) return undefined;
  if (ASCII_WORD.test(folded)) return cachedStem(folded);
  return limitLength(folded);
}

function wordTokens(raw: string, out: string[], identifierParts: boolean): void {
  for (const part of raw.split(RUN_SEPARATOR)) {
    const trimmed = trimEdges(part);
    if (!trimmed) continue;
    const stripped = stripContraction(trimmed.toLowerCase());
    if (stripped === undefined) continue;
    const word = trimEdges(removeApostrophes(stripped));
    if (!word) continue;
    if (IDENTIFIER_MARK.test(word)) {
      out.push(limitLength(word));
      if (identifierParts && word.includes("-")) hyphenParts(word, out);
      continue;
    }
    // Letters joined by hyphens are ordinary words ("well-known", "state-of-the-art").
    hyphenParts(word, out);
  }
}

/**
 * The hyphen-separated parts of a word that hold a letter, each as a token of its own. A plain word is
 * only its parts. BM25 adds an identifier's parts after the whole: prose writes the same thing joined
 * and apart ("CTLA-4" and "CTLA 4", "p53-dependent" beside "p53"), so matching both finds both, as
 * search engines' word-delimiter filters that keep the original do. A part of digits alone says nothing
 * by itself, and an identifier of digits alone (a range "3-5", a date "2025-12-21") stays whole: split,
 * they matched every text holding the numbers.
 */
function hyphenParts(word: string, out: string[]): void {
  for (const part of word.split("-")) {
    if (IDENTIFIER_MARK.test(part)) {
      if (HAS_LETTER.test(part)) out.push(limitLength(part));
    } else {
      const term = plainTerm(part);
      if (term !== undefined) out.push(term);
    }
  }
}

function pushBigrams(chars: readonly string[], out: string[]): void {
  for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
}

/**
 * A CJK run yields: every segmenter word of 3+ characters whole; every single-character word that
 * is not a stopword or a lone hiragana (猫, 书, 钱 are words; a lone hiragana is an inflection or particle);
 * and character bigrams over each stretch between stopwords. The bigrams make matching independent of
 * how the segmenter happened to split either side (报销标准 vs 报销|的|标准 share 报销 and 标准); cutting
 * them at stopwords keeps noise like 销的 and 准是 out. Two-character words are exactly their bigram.
 */
function cjkTokens(run: string, out: string[]): void {
  let stretch: string[] = [];
  for (const segment of segmenter.segment(run)) {
    const word = segment.segment;
    if (!segment.isWordLike || CJK_STOPWORDS.has(word)) {
      pushBigrams(stretch, out);
      stretch = [];
      continue;
    }
    const chars = Array.from(word);
    if (chars.length === 1) {
      if (!HIRAGANA_ONLY.test(word)) out.push(word);
    } else if (chars.length >= 3) {
      out.push(limitLength(word));
    }
    for (const char of chars) stretch.push(char);
  }
  pushBigrams(stretch, out);
}

function seaTokens(run: string, out: string[]): void {
  for (const segment of segmenter.segment(run)) {
    if (segment.isWordLike) out.push(limitLength(segment.segment));
  }
}

/**
 * The index terms of a text, in order, duplicates kept (callers count term frequencies).
 *
 * - NFKC-normalised and lower-cased; "1,000" reads as 1000.
 * - English: stopwords dropped (`ENGLISH_STOPWORDS`), possessives and contractions stripped
 *   ("Caroline's" -> caroline, "didn't" dropped), Latin diacritics folded, Porter-stemmed
 *   ("running", "runs" -> run). Hyphenated words split into their parts.
 * - Identifiers, codes and numbers (anything with a digit, `_`, `@` or an inner `.`) stay whole and
 *   unstemmed: `ERR_1024`, `v2.3.1`, `XYZ-100`, `user@example.com`, `2023`, `3.5`.
 * - Chinese / Japanese / Korean: segmenter words and character bigrams (see `cjkTokens`), CJK function
 *   words dropped (`CJK_STOPWORDS`).
 * - Other scripts: lower-cased words, unstemmed.
 *
 * Every token matches `TOKEN_PATTERN` and is at most `MAX_TOKEN_CHARS` code points long.
 */
export function tokenize(text: string): string[] {
  return tokens(text, false);
}

/**
 * The terms BM25 indexes and searches a text by: its tokens, each identifier joined by hyphens
 * followed by its parts that hold a letter (`CTLA-4` -> `ctla-4 ctla`, `p53-dependent` ->
 * `p53-dependent p53 depend`; `3-5` stays `3-5`).
 * The whole identifier is kept, so it still matches exactly, and an index written with `tokenize`
 * alone still answers a query of these terms by the whole. Not for code that reads tokens by
 * position: `tokenize` gives one token per word.
 */
export function lexicalTerms(text: string): string[] {
  return tokens(text, true);
}

function tokens(text: string, identifierParts: boolean): string[] {
  const out: string[] = [];
  forEachPiece(normalizeText(text), (kind, piece) => {
    if (kind === "word") wordTokens(piece, out, identifierParts);
    else if (kind === "cjk") cjkTokens(piece, out);
    else seaTokens(piece, out);
  });
  return out;
}

/** The set of distinct tokens of a text, for quick overlap checks. */
export function tokenSet(text: string): Set<string> {
  return new Set(tokenize(text));
}

const OPENING_PUNCTUATION = new Set(['"', "'", "“", "‘", "(", "[", "「", "『", "（", "*", "-", "—", "–", "•"]);
const SENTENCE_END = new Set([".", "!", "?", "。", "！", "？", ":", ";", "…"]);

/** True when only whitespace and opening punctuation separate `index` from a sentence end or the start of text. */
function startsSentence(text: string, index: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const char = text.charAt(i);
    if (char === "\n") return true;
    if (/\s/.test(char) || OPENING_PUNCTUATION.has(char)) continue;
    return SENTENCE_END.has(char);
  }
  return true;
}

/** "Running" (capital then lower-case), as opposed to "LGBTQ" or "iPhone", whose casing is never an accident. */
function isCapitalized(word: string): boolean {
  const first = word.charAt(0);
  return first !== first.toLowerCase() && word.slice(1) === word.slice(1).toLowerCase();
}

function codePointLength(word: string): number {
  let length = 0;
  for (const _char of word) length++;
  return length;
}

interface KeywordCandidate {
  surface: string;
  startsSentence: boolean;
}

/**
 * The content words of a text as written, for a memory's or a plan's `keywords`: stopwords dropped,
 * unstemmed, de-duplicated case-insensitively (first occurrence wins), in order of appearance.
 *
 * Casing is kept ("Caroline", "LGBTQ", "ERR_1024"), except that a capitalised word opening a sentence
 * is lower-cased when the text also uses it in lower case ("Running helps. I like running." -> running):
 * without a dictionary that is the one reliable sign it is not a proper name.
 * Single characters are left out (too ambiguous to store), and so are CJK words of one character
 * (the lexical index still has them as tokens). Hyphenated words and identifiers stay whole.
 */
export function keywords(text: string): string[] {
  const normalized = normalizeText(text);
  const candidates: KeywordCandidate[] = [];
  const usedInLowerCase = new Set<string>();
  forEachPiece(normalized, (kind, piece, index) => {
    if (kind !== "word") {
      for (const segment of segmenter.segment(piece)) {
        const word = segment.segment;
        if (segment.isWordLike && !CJK_STOPWORDS.has(word) && codePointLength(word) >= 2) {
          candidates.push({ surface: word, startsSentence: false });
        }
      }
      return;
    }
    let first = true;
    for (const part of piece.split(RUN_SEPARATOR)) {
      const atSentenceStart = first && startsSentence(normalized, index);
      first = false;
      const trimmed = trimEdges(part);
      const stripped = trimmed ? stripContraction(trimmed) : undefined;
      const surface = stripped === undefined ? undefined : trimEdges(stripped);
      if (!surface || codePointLength(surface) < 2) continue;
      const lower = surface.toLowerCase();
      if (surface.charAt(0) === surface.charAt(0).toLowerCase()) usedInLowerCase.add(lower);
      const isIdentifier = IDENTIFIER_MARK.test(lower);
      if (!isIdentifier && lower.split("-").every((sub) => !sub || plainTerm(removeApostrophes(sub)) === undefined)) continue;
      candidates.push({ surface, startsSentence: atSentenceStart });
    }
  });
  const seen = new Set<string>();
  const result: string[] = [];
  for (const candidate of candidates) {
    const lower = candidate.surface.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    const lowerIt = candidate.startsSentence && isCapitalized(candidate.surface) && usedInLowerCase.has(lower);
    result.push(lowerIt ? lower : candidate.surface);
  }
  return result;
}
