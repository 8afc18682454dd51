#!/usr/bin/env node
// The `recallgraph` command: runs the compiled CLI in dist/ (built by `npm run build`, which `npm pack`
// runs first), so an installed package needs neither TypeScript nor tsx.
import { existsSync } from "node:fs";

const main = new URL("../dist/cli/main.js", import.meta.url);

// A clone has no dist/ until it is built; say so instead of printing a module-resolution stack trace.
if (!existsSync(main)) {
  console.error("recallgraph: dist/ is missing; run `npm run build`, or run the sources with `node --import tsx src/cli/main.ts`");
  process.exit(2);
}
await import(main.href);
