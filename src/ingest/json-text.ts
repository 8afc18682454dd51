import { ValidationError } from "../core/errors.js";

/**
 * JSON.parse whose error names the line and column. V8 gives a character position for only some
 * syntax errors, so on failure a small scanner finds where the text stops being JSON.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const offset = offsetWithinStack(text);
    if (offset === undefined) throw new ValidationError("", `not valid JSON (${reason})`);
    const before = text.slice(0, offset);
    const line = before.split("\n").length;
    const column = offset - before.lastIndexOf("\n");
    throw new ValidationError(`line ${line}`, `not valid JSON at column ${column} (${reason})`, { line, column });
  }
}

/** The scanner's offset, or undefined when the text nests deeper than the stack lets it follow. */
function offsetWithinStack(text: string): number | undefined {
  try {
    return syntaxErrorOffset(text);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** Offset of the first character at which `text` is no longer valid JSON; undefined when it is valid. */
export function syntaxErrorOffset(text: string): number | undefined {
  return new JsonScanner(text).firstErrorOffset();
}

/** Where the scanner stopped: caught within this module and turned into a position, never seen by a caller. */
class ScanError extends Error {
  constructor(readonly offset: number) {
    super("json syntax error");
  }
}

const CLOSING_BRACKET: Readonly<Record<string, "}" | "]">> = { "{": "}", "[": "]" };

/** A recursive-descent JSON recognizer that only tracks where it is, and throws ScanError where the text breaks. */
class JsonScanner {
  private i = 0;

  constructor(private readonly text: string) {}

  firstErrorOffset(): number | undefined {
    try {
      this.document();
      return undefined;
    } catch (error) {
      if (error instanceof ScanError) return error.offset;
      throw error;
    }
  }

  private document(): void {
    this.value();
    this.space();
    if (this.i < this.text.length) this.fail();
  }

  /**
   * One value. Objects and arrays are scanned here rather than in helpers of their own so that a level
   * of nesting costs one stack frame: the scanner recurses once per level the text nests.
   */
  private value(): void {
    this.space();
    const close = CLOSING_BRACKET[this.peek()];
    if (close === undefined) return this.scalar();
    this.i += 1; // opening brace or bracket
    this.space();
    if (this.eat(close)) return;
    do {
      if (close === "}") this.memberKey();
      this.value();
    } while (!this.listEnds(close));
  }

  private scalar(): void {
    const char = this.peek();
    if (char === '"') return this.string();
    if (char === "t") return this.literal("true");
    if (char === "f") return this.literal("false");
    if (char === "n") return this.literal("null");
    return this.number();
  }

  /** An object member's key and its colon. */
  private memberKey(): void {
    this.space();
    if (this.peek() !== '"') this.fail();
    this.string();
    this.space();
    if (!this.eat(":")) this.fail();
  }

  /** After an item: true once the closing bracket is eaten, false after a comma. */
  private listEnds(close: string): boolean {
    this.space();
    if (this.eat(",")) return false;
    if (this.eat(close)) return true;
    return this.fail();
  }

  private string(): void {
    this.i += 1; // opening quote
    while (this.i < this.text.length) {
      const char = this.peek();
      if (char === '"') {
        this.i += 1;
        return;
      }
      if (char < " ") this.fail();
      if (char === "\\") this.escape();
      else this.i += 1;
    }
    this.fail();
  }

  private escape(): void {
    this.i += 1; // backslash
    const escape = this.peek();
    if (escape === "u") return this.unicodeEscape();
    // "".includes is true for every string, so the end of text needs its own test.
    if (escape === "" || !'"\\/bfnrt'.includes(escape)) this.fail();
    this.i += 1;
  }

  private unicodeEscape(): void {
    for (let k = 1; k <= 4; k += 1) {
      if (!/[0-9a-fA-F]/.test(this.text.charAt(this.i + k))) {
        this.i += k;
        this.fail();
      }
    }
    this.i += 5; // "u" and four hex digits
  }

  private number(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.i));
    if (!match) return this.fail();
    this.i += match[0].length;
  }

  private literal(word: string): void {
    for (const char of word) {
      if (this.peek() !== char) this.fail();
      this.i += 1;
    }
  }

  private space(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.peek())) this.i += 1;
  }

  private peek(): string {
    return this.text.charAt(this.i);
  }

  private eat(char: string): boolean {
    if (this.peek() !== char) return false;
    this.i += 1;
    return true;
  }

  private fail(): never {
    throw new ScanError(Math.min(this.i, this.text.length));
  }
}

/** One non-blank line of a JSON Lines text, parsed. */
export interface JsonLine {
  /** 1-based. */
  line: number;
  json: unknown;
}

/**
 * The non-blank lines of a JSON Lines text (a byte-order mark at its start ignored), each parsed as
 * JSON; a line that is not JSON throws `invalid(line, reason)`, the parser's reason in the caller's
 * words for where the line came from.
 */
export function jsonLines(content: string, invalid: (line: number, reason: string) => Error): JsonLine[] {
  const parsed: JsonLine[] = [];
  content
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((raw, index) => {
      if (!raw.trim()) return;
      try {
        parsed.push({ line: index + 1, json: JSON.parse(raw) });
      } catch (error) {
        throw invalid(index + 1, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
      }
    });
  return parsed;
}
