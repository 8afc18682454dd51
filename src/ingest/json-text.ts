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
    const offset = syntaxErrorOffset(text);
    if (offset === undefined) throw new ValidationError("", `not valid JSON (${reason})`);
    const before = text.slice(0, offset);
    const line = before.split("\n").length;
    const column = offset - before.lastIndexOf("\n");
    throw new ValidationError(`line ${line}`, `not valid JSON at column ${column} (${reason})`, { line, column });
  }
}

/** Offset of the first character at which `text` is no longer valid JSON; undefined when it is valid. */
export function syntaxErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new ScanError(Math.min(i, text.length));
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i += 1;
  };
  const literal = (word: string) => {
    for (const char of word) {
      if (text.charAt(i) !== char) fail();
      i += 1;
    }
  };
  const string = () => {
    i += 1; // opening quote
    while (i < text.length) {
      const char = text.charAt(i);
      if (char === '"') {
        i += 1;
        return;
      }
      if (char < " ") fail();
      if (char === "\\") {
        i += 1;
        const escape = text.charAt(i);
        if (escape === "u") {
          for (let k = 1; k <= 4; k += 1) {
            if (!/[0-9a-fA-F]/.test(text.charAt(i + k))) {
              i += k;
              fail();
            }
          }
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(escape) || escape === "") fail();
      }
      i += 1;
    }
    fail();
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail();
    i += match?.[0].length ?? 0;
  };
  const value = (): void => {
    space();
    const char = text.charAt(i);
    if (char === "{") {
      i += 1;
      space();
      if (text.charAt(i) === "}") {
        i += 1;
        return;
      }
      for (;;) {
        space();
        if (text.charAt(i) !== '"') fail();
        string();
        space();
        if (text.charAt(i) !== ":") fail();
        i += 1;
        value();
        space();
        if (text.charAt(i) === ",") i += 1;
        else if (text.charAt(i) === "}") {
          i += 1;
          return;
        } else fail();
      }
    }
    if (char === "[") {
      i += 1;
      space();
      if (text.charAt(i) === "]") {
        i += 1;
        return;
      }
      for (;;) {
        value();
        space();
        if (text.charAt(i) === ",") i += 1;
        else if (text.charAt(i) === "]") {
          i += 1;
          return;
        } else fail();
      }
    }
    if (char === '"') return string();
    if (char === "t") return literal("true");
    if (char === "f") return literal("false");
    if (char === "n") return literal("null");
    return number();
  };
  try {
    value();
    space();
    if (i < text.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof ScanError) return error.offset;
    throw error;
  }
}

class ScanError extends Error {
  constructor(readonly offset: number) {
    super("json syntax error");
  }
}
