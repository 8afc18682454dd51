/** Small counts as people write them in time expressions: "3", "three", "a couple of", "三", "十二", "几". */

const ENGLISH_COUNTS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  // Vague counts get one fixed, documented reading: "couple" 2, "few" 3, "several" 5.
  couple: 2,
  few: 3,
  several: 5,
};

/** Regex source for an English count, e.g. "3", "three", "a couple of", "a few", "several". */
export const ENGLISH_COUNT = String.raw`\d{1,3}|(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve`;

export function parseEnglishCount(text: string): number | undefined {
  const normalised = text.toLowerCase().replace(/\s+of$/, "").replace(/^a\s+/, "").trim();
  if (/^\d+$/.test(normalised)) return Number(normalised);
  return ENGLISH_COUNTS[normalised === "" ? "a" : normalised];
}

const CHINESE_DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** Regex source for a Chinese or Arabic count up to 99 (几 = "a few", read as 3). */
export const CHINESE_COUNT = String.raw`\d{1,3}|[一二两三四五六七八九十几]{1,3}`;

/** Reads "3", "三", "十", "十二", "二十", "二十三", "几"; undefined for anything else. */
export function parseChineseCount(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (text === "几") return 3;
  const match = /^([一二两三四五六七八九])?(十)?([一二三四五六七八九])?$/.exec(text);
  if (!match || text === "") return undefined;
  const [, leading, ten, trailing] = match;
  if (!ten) return leading && !trailing ? CHINESE_DIGITS[leading] : undefined;
  return (leading ? (CHINESE_DIGITS[leading] ?? 0) : 1) * 10 + (trailing ? (CHINESE_DIGITS[trailing] ?? 0) : 0);
}
