#!/usr/bin/env node
// The `recallgraph` command. The package ships TypeScript sources, so this launcher registers tsx's
// loader and then runs the CLI; a clone works after `npm ci`, with no build step.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

// The package's own tsconfig, not whatever tsconfig.json the current directory happens to hold.
register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
await import(new URL("../src/cli/main.ts", import.meta.url).href);
