import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "../../bench/synthetic.js";
import { keywords, lexicalTerms, MAX_TOKEN_CHARS, TOKEN_PATTERN, tokenize } from "../../src/text/tokenizer.js";

function shared(a: string, b: string): string[] {
  const right = new Set(tokenize(b));
  return [...new Set(tokenize(a))].filter((token) => right.has(token));
}

describe("tokenize: English", () => {
  it("lower-cases, drops stopwords and question words, stems", () => {
    assert.deepEqual(tokenize("When did Caroline go to the LGBTQ support group?"), ["carolin", "go", "lgbtq", "support", "group"]);
    assert.deepEqual(tokenize("What is it that they were doing?"), []);
  });

  it("stems inflections of one word to the same term", () => {
    assert.equal(tokenize("running")[0], tokenize("runs")[0]);
    assert.deepEqual(tokenize("Painting paintings painted"), ["paint", "paint", "paint"]);
  });

  it("keeps duplicates and order so callers can count term frequencies", () => {
    assert.deepEqual(tokenize("dog cat dog"), ["dog", "cat", "dog"]);
  });

  it("strips possessives and contractions, drops negated auxiliaries", () => {
    assert.deepEqual(tokenize("Caroline's dog didn't bark; they're home"), ["carolin", "dog", "bark", "home"]);
    assert.deepEqual(tokenize("Melanie\u2019s"), tokenize("Melanie's"));
  });

  it("splits hyphenated words, folds Latin diacritics", () => {
    assert.deepEqual(tokenize("state-of-the-art"), ["state", "art"]);
    assert.deepEqual(tokenize("naïve résumé"), tokenize("naive resume"));
  });

  it("is case-insensitive and NFKC-normalised", () => {
    assert.deepEqual(tokenize("HIKING Trip"), tokenize("hiking trip"));
    assert.deepEqual(tokenize("ＥＲＲ＿１０２４"), ["err_1024"]);
  });
});

describe("tokenize: identifiers, codes and numbers", () => {
  it("keeps ERR_1024 and ERR_2048 whole and distinct", () => {
    const first = tokenize("ERR_1024");
    const second = tokenize("ERR_2048");
    assert.deepEqual(first, ["err_1024"]);
    assert.deepEqual(second, ["err_2048"]);
    assert.deepEqual(shared("ERR_1024", "ERR_2048"), []);
  });

  it("keeps versions, product codes, e-mail addresses and numbers whole and unstemmed", () => {
    assert.deepEqual(
      tokenize("Upgrade to v2.3.1 of XYZ-100, mail user@example.com by 2023; ratio 3.5"),
      ["upgrad", "v2.3.1", "xyz-100", "mail", "user@example.com", "2023", "ratio", "3.5"],
    );
    assert.deepEqual(tokenize("1,000 dollars"), ["1000", "dollar"]);
  });

  it("cuts very long identifiers to MAX_TOKEN_CHARS", () => {
    const [token] = tokenize(`id_${"a".repeat(200)}`);
    assert.equal(token?.length, MAX_TOKEN_CHARS);
  });
});

describe("lexicalTerms: what BM25 indexes", () => {
  it("adds the parts of a hyphen-joined identifier that hold a letter, after the whole", () => {
    assert.deepEqual(lexicalTerms("CTLA-4 and p53-dependent apoptosis"), ["ctla-4", "ctla", "p53-dependent", "p53", "depend", "apoptosi"]);
    assert.deepEqual(lexicalTerms("tdp-43-induced"), ["tdp-43-induced", "tdp", "induc"]);
  });

  it("keeps ranges and dates whole, and drops a part that is a stopword", () => {
    assert.deepEqual(lexicalTerms("3-5 times on 2025-12-21"), ["3-5", "time", "2025-12-21"]);
    assert.deepEqual(lexicalTerms("A-769662"), ["a-769662"]);
    for (const term of lexicalTerms("XYZ-100 covid-19 7-day-old ER-α36 anti-IL-6 2.5-5kg")) assert.match(term, TOKEN_PATTERN);
  });

  it("is tokenize wherever no identifier is joined by a hyphen", () => {
    const text = "Upgrade to v2.3.1, mail user@example.com; a well-known state-of-the-art ERR_1024 报销的标准是多少";
    assert.deepEqual(lexicalTerms(text), tokenize(text));
  });

  it("leaves tokenize one token per word", () => {
    assert.deepEqual(tokenize("CTLA-4 and p53-dependent"), ["ctla-4", "p53-dependent"]);
  });
});

describe("tokenize: Chinese and Japanese", () => {
  it("segments words and drops particles", () => {
    assert.deepEqual(tokenize("报销的标准是多少"), ["报销", "标准"], "question words such as 多少 are stopwords");
  });

  it("lets 报销标准 find 报销的标准是多少", () => {
    const common = shared("报销标准", "报销的标准是多少");
    assert.ok(common.includes("报销") && common.includes("标准"), `shared: ${common.join(",")}`);
  });

  it("keeps meaningful one-character words, so a one-character query still matches", () => {
    assert.ok(tokenize("我喜欢猫").includes("猫"));
    assert.deepEqual(shared("猫", "我喜欢猫"), ["猫"]);
    assert.ok(!tokenize("我喜欢猫").includes("我"), "pronoun 我 is a stop word");
  });

  it("keeps characters that are part of a word even when they are particles alone", () => {
    assert.ok(tokenize("现在").includes("现在"));
    assert.ok(tokenize("目的地").includes("目的地"));
  });

  it("handles Japanese and mixed-script text", () => {
    const japanese = tokenize("私は昨日、新しい本を買いました");
    for (const expected of ["昨日", "新しい", "本"]) assert.ok(japanese.includes(expected), expected);
    for (const particle of ["は", "を", "私"]) assert.ok(!japanese.includes(particle), particle);
    assert.deepEqual(tokenize("ERR_1024的报销"), ["err_1024", "报销"]);
  });
});

describe("tokenize: hostile input", () => {
  const hostile = [
    '"quoted" * NEAR OR -excluded AND (group) ^start col:val NEAR(a b, 3) "unterminated',
    "{col1 col2}: x + y - z * \"\" '' ``",
    "\u0000\u0007\uFFFF \uD800 lone surrogate \u202E rtl",
    "",
    "   \n\t ",
    "🙂🙂 emoji only 🙂",
  ];

  it("never crashes and every token is plain text", () => {
    for (const text of hostile) {
      for (const token of tokenize(text)) {
        assert.match(token, TOKEN_PATTERN, `token ${JSON.stringify(token)} of ${JSON.stringify(text)}`);
        assert.ok(!/["*():^{}+\s]/.test(token));
      }
    }
  });

  it("gives only plain, non-empty tokens for random text in many scripts (seeded fuzz)", () => {
    const random = seededRandom(12345);
    // ASCII with all punctuation, Latin-1, combining marks, Cyrillic, Thai, CJK punctuation and
    // ideographs, kana, Hangul, full-width forms, emoji.
    const ranges: Array<[number, number]> = [
      [0x20, 0x7e], [0xa0, 0xff], [0x300, 0x36f], [0x400, 0x4ff], [0xe00, 0xe7f], [0x3000, 0x303f],
      [0x3040, 0x30ff], [0x4e00, 0x4fff], [0xac00, 0xac40], [0xff01, 0xff5e], [0x1f600, 0x1f64f],
    ];
    for (let round = 0; round < 300; round++) {
      let text = "";
      const length = 1 + Math.floor(random() * 40);
      for (let i = 0; i < length; i++) {
        const [low, high] = ranges[Math.floor(random() * ranges.length)] ?? [0x20, 0x7e];
        text += String.fromCodePoint(low + Math.floor(random() * (high - low + 1)));
      }
      for (const token of tokenize(text)) {
        assert.match(token, TOKEN_PATTERN, `token ${JSON.stringify(token)} of ${JSON.stringify(text)}`);
        assert.ok(!/^[_.@-]|[_.@-]$/.test(token), `token ${JSON.stringify(token)} starts or ends with punctuation`);
      }
      for (const keyword of keywords(text)) assert.ok(keyword.trim().length > 0);
    }
  });

  it("turns FTS5 operators into ordinary lower-case terms", () => {
    assert.deepEqual(tokenize('"quoted" * NEAR OR -excluded'), ["quot", "near", "exclud"]);
    assert.deepEqual(tokenize(""), []);
  });

  it("tokenizes a large text as the sum of its parts (speed is bench's business, not a test's)", () => {
    const sentence = "The quick brown fox jumps over the lazy dog near ERR_1024 报销的标准是多少. ";
    const once = tokenize(sentence);
    const tokens = tokenize(sentence.repeat(2_000));
    assert.ok(once.length > 5);
    assert.equal(tokens.length, once.length * 2_000);
    assert.deepEqual(tokens.slice(-once.length), once);
  });
});

describe("keywords", () => {
  it("keeps surface forms and the casing of names, drops stopwords", () => {
    assert.deepEqual(keywords("When did Caroline go to the LGBTQ support group?"), ["Caroline", "go", "LGBTQ", "support", "group"]);
  });

  it("de-duplicates case-insensitively and lower-cases sentence-initial common words", () => {
    assert.deepEqual(keywords("Running helps. I enjoy running and Running."), ["running", "helps", "enjoy"]);
    assert.deepEqual(keywords("Caroline met Caroline's friend"), ["Caroline", "met", "friend"]);
  });

  it("keeps identifiers and hyphenated words whole", () => {
    assert.deepEqual(keywords("ERR_1024 broke the well-known XYZ-100"), ["ERR_1024", "broke", "well-known", "XYZ-100"]);
  });

  it("gives CJK words of two or more characters", () => {
    assert.deepEqual(keywords("报销的标准是多少"), ["报销", "标准"]);
  });
});
