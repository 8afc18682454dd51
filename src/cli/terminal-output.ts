/** Printing: JSON for machines, aligned plain text for people. Data goes to stdout, notes to stderr. */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * Writes to stdout and waits until it takes more, so a long output is held in memory a piece at a
 * time. A reader that went away (`| head`) ends the wait too; `stdoutClosed` then says to stop.
 */
export async function writeOutput(text: string): Promise<void> {
  if (stdoutClosed()) return;
  if (process.stdout.write(text)) {
    // A reader that went away shows as an error after the write returns: one turn of the event loop
    // lets it arrive before the caller asks stdoutClosed.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return;
  }
  await new Promise<void>((resolve) => {
    const done = (): void => {
      for (const event of ["drain", "close", "error"] as const) process.stdout.off(event, done);
      resolve();
    };
    for (const event of ["drain", "close", "error"] as const) process.stdout.once(event, done);
  });
}

let readerLeft = false;

/**
 * Takes stdout's write errors for the whole command. A reader that closed it early (`| head`) is not
 * a failure: it is remembered, so a long output stops (stdoutClosed). Any other goes to `onFailure`.
 */
export function handleStdoutErrors(onFailure: (error: Error) => void): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") readerLeft = true;
    else onFailure(error);
  });
}

/** Whether stdout takes no more: its reader left (process.stdout stays open after EPIPE), or it was ended. */
export function stdoutClosed(): boolean {
  return readerLeft || process.stdout.destroyed || process.stdout.writableEnded;
}

/** A remark that is not the command's result (kept off stdout so `--json` output stays parseable). */
export function printNote(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Columns to lay text out in: the terminal's width, capped so long lines stay readable. */
export function outputWidth(): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return Math.max(40, Math.min(columns ?? 100, 110));
}

/** "2026-03-10T06:30:00.000Z" -> "2026-03-10 06:30" (UTC, as stored). */
export function formatTimestamp(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}` : iso;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatSeconds(seconds: number): string {
  return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
}

// Wide (two-column) characters: CJK ideographs, kana, hangul, fullwidth forms. Enough for alignment.
const WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/u;

/** How many terminal columns `text` takes. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += WIDE.test(char) ? 2 : 1;
  return width;
}

export function padEnd(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

export function padStart(text: string, width: number): string {
  return " ".repeat(Math.max(0, width - displayWidth(text))) + text;
}

/**
 * Greedy word wrap to `width` columns, each line prefixed by `indent`. Latin text breaks at spaces;
 * CJK text, which has none, may break between any two characters.
 */
export function wrapText(text: string, width: number, indent = ""): string[] {
  const room = Math.max(10, width - displayWidth(indent));
  // A CJK character keeps the closing punctuation after it, so no line starts with "。" or "，".
  const pieces = text.replace(/\s+/g, " ").trim().match(/[\u2E80-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF00-\uFFEF][。，、；：！？）》」』】”’]*|[^\s\u2E80-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF00-\uFFEF]+|\s/gu) ?? [];
  const lines: string[] = [];
  let line = "";
  for (const piece of pieces) {
    if (piece === " ") {
      if (line && displayWidth(line) < room) line += " ";
      continue;
    }
    if (line && displayWidth(line) + displayWidth(piece) > room) {
      lines.push(line.trimEnd());
      line = "";
    }
    // A single word longer than the line (a URL, say) is cut rather than overflowing.
    let rest = piece;
    while (displayWidth(rest) > room) {
      lines.push(rest.slice(0, room));
      rest = rest.slice(room);
    }
    line += rest;
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines.map((wrapped) => indent + wrapped);
}

/** Rows laid out in columns; `alignRight` marks numeric columns. */
export function table(rows: readonly (readonly string[])[], alignRight: readonly boolean[] = []): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, displayWidth(cell))));
  return rows.map((row) =>
    row
      .map((cell, column) => (alignRight[column] ? padStart(cell, widths[column] ?? 0) : padEnd(cell, widths[column] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}
