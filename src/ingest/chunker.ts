/**
 * Splits Markdown or plain text into chunks that remember where they sit: each chunk carries the
 * path of headings above it ("Guide > Install > Linux"), so a chunk about "run the installer" is
 * still found by a question about installing on Linux. Splits respect blocks: a paragraph, list or
 * fenced code block is cut only when it alone exceeds the target size (then at sentences or lines).
 */

export interface ChunkOptions {
  /** Target chunk size in characters (heading path not counted). Default 800. */
  maxChars?: number;
  /** "markdown" reads # headings and ``` fences; "text" treats the file as paragraphs only. */
  format?: "markdown" | "text";
}

export interface DocumentChunk {
  /** Headings above this chunk, outermost first; empty for text before any heading or for plain text. */
  headingPath: string[];
  /** The chunk's own content, without the heading path. */
  body: string;
}

export const DEFAULT_CHUNK_CHARS = 800;

interface Section {
  headingPath: string[];
  lines: string[];
}

export function chunkDocument(content: string, options: ChunkOptions = {}): DocumentChunk[] {
  const maxChars = Math.max(100, options.maxChars ?? DEFAULT_CHUNK_CHARS);
  const normalized = content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const sections =
    options.format === "text" ? [{ headingPath: [], lines: normalized.split("\n") }] : markdownSections(stripFrontMatter(normalized));
  const chunks: DocumentChunk[] = [];
  for (const section of sections) {
    for (const body of packBlocks(blocksOf(section.lines), maxChars)) chunks.push({ headingPath: section.headingPath, body });
  }
  return chunks;
}

function stripFrontMatter(text: string): string {
  const match = /^---\n[\s\S]*?\n---\n/.exec(text);
  return match ? text.slice(match[0].length) : text;
}

/** Sections under ATX (`## Title`) and setext (`Title` over `===`/`---`) headings, ignoring fenced code. */
function markdownSections(text: string): Section[] {
  const sections: Section[] = [{ headingPath: [], lines: [] }];
  const stack: { level: number; title: string }[] = [];
  let fence: string | undefined;
  const open = (level: number, title: string) => {
    while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= level) stack.pop();
    stack.push({ level, title });
    sections.push({ headingPath: stack.map((heading) => heading.title), lines: [] });
  };
  for (const line of text.split("\n")) {
    const current = sections[sections.length - 1];
    if (!current) continue;
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1]?.[0] === fence[0] && (fenceMatch[1]?.length ?? 0) >= fence.length) fence = undefined;
      current.lines.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      current.lines.push(line);
      continue;
    }
    const atx = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) {
      open(atx[1]?.length ?? 1, cleanHeading(atx[2] ?? ""));
      continue;
    }
    const setext = /^\s{0,3}(=+|-+)\s*$/.exec(line);
    const previous = current.lines[current.lines.length - 1];
    const beforePrevious = current.lines[current.lines.length - 2];
    // A setext underline needs a one-line paragraph above it; otherwise `---` is a rule or list text.
    if (setext && previous?.trim() && !beforePrevious?.trim() && !/^\s*([-*+>]|\d+[.)])\s/.test(previous)) {
      current.lines.pop();
      open(setext[1]?.startsWith("=") ? 1 : 2, cleanHeading(previous));
      continue;
    }
    current.lines.push(line);
  }
  return sections;
}

function cleanHeading(title: string): string {
  return title.replace(/[*_`]/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").trim() || "(untitled)";
}

/** Blank-line separated blocks; a fenced code block stays one block even with blank lines inside. */
function blocksOf(lines: readonly string[]): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    const block = current.join("\n").replace(/^\n+|\s+$/g, "");
    if (block.trim()) blocks.push(block);
    current = [];
  };
  for (const line of lines) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      current.push(line);
      if (fenceMatch && fenceMatch[1]?.[0] === fence[0]) {
        fence = undefined;
        flush();
      }
      continue;
    }
    if (fenceMatch) {
      flush();
      fence = fenceMatch[1];
      current.push(line);
      continue;
    }
    if (!line.trim()) flush();
    else current.push(line);
  }
  flush();
  return blocks;
}

/** Greedily packs whole blocks into chunks of at most `maxChars`; an oversized block is split first. */
function packBlocks(blocks: readonly string[], maxChars: number): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const block of blocks.flatMap((block) => (block.length > maxChars ? splitBlock(block, maxChars) : [block]))) {
    if (current && current.length + 2 + block.length > maxChars) {
      chunks.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${block}` : block;
  }
  if (current) chunks.push(current);
  return chunks;
}

/** Splits one block at sentence ends (prose) or line ends (code, lists), hard-cutting only what still exceeds `maxChars`. */
function splitBlock(block: string, maxChars: number): string[] {
  const isCodeOrList = /^\s{0,3}(`{3,}|~{3,})/.test(block) || block.split("\n").length > 3;
  const pieces = isCodeOrList ? block.split("\n") : block.match(/[^.!?。！？]+(?:[.!?。！？]+["')\]]*\s*|$)/gu) ?? [block];
  const separator = isCodeOrList ? "\n" : "";
  const parts: string[] = [];
  let current = "";
  for (const piece of pieces.flatMap((piece) => hardCut(piece, maxChars))) {
    if (current && current.length + separator.length + piece.length > maxChars) {
      parts.push(current.trimEnd());
      current = "";
    }
    current = current ? `${current}${separator}${piece}` : piece;
  }
  if (current.trim()) parts.push(current.trimEnd());
  return parts.filter((part) => part.trim());
}

function hardCut(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += maxChars) parts.push(text.slice(start, start + maxChars));
  return parts;
}
