import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { cruise, type ICruiseOptions, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const projectRoot = path.resolve(import.meta.dirname, "../..");
const configPath = path.join(projectRoot, ".dependency-cruiser.cjs");

async function cruiseWithProjectRules(baseDir: string, tsConfig?: string): Promise<ICruiseResult> {
  const options: ICruiseOptions = { ...(await extractDepcruiseOptions(configPath)), baseDir };
  if (!tsConfig) delete options.tsConfig;
  const transpile = tsConfig ? { tsConfig: extractTSConfig(tsConfig) } : {};
  const { output } = await cruise(["src"], options, {}, transpile);
  assert.ok(typeof output !== "string", "the cruise returns a result object");
  return output;
}

function violationsOf(result: ICruiseResult): string[] {
  return result.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`);
}

describe("layers", () => {
  it("src/ imports only downward (.dependency-cruiser.cjs)", async () => {
    const result = await cruiseWithProjectRules(projectRoot, path.join(projectRoot, "tsconfig.json"));
    assert.ok(result.summary.totalCruised > 50, `cruised ${result.summary.totalCruised} modules`);
    assert.deepEqual(violationsOf(result), []);
  });

  it("the rules refuse an upward import, a folder outside the layers, a layer importing an entry point, and a cycle", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "recallgraph-layers-"));
    try {
      const files: Record<string, string> = {
        "src/text/tokens.ts": 'import { store } from "../stores/store.js";\nexport const tokens = store;\n',
        "src/stores/store.ts": "export const store = 1;\n",
        "src/time/window.ts": 'import { node } from "../nodes/node.js";\nexport const window = node;\n',
        "src/nodes/node.ts": "export const node = 2;\n",
        "src/helpers/misc.ts": "export const misc = 3;\n",
        "src/memory/a.ts": 'import { misc } from "../helpers/misc.js";\nimport { b } from "./b.js";\nexport const a = b + misc;\n',
        "src/memory/b.ts": 'import { a } from "./a.js";\nexport const b = 1;\nexport const again = () => a;\n',
        "src/errors.ts": 'export { store } from "./stores/store.js";\n',
        "src/cli/main.ts": 'import { store } from "../errors.js";\nexport const main = store;\n',
      };
      for (const [name, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
        await writeFile(path.join(dir, name), text);
      }
      const found = violationsOf(await cruiseWithProjectRules(dir)).map((line) => line.replace(/\\/g, "/"));
      assert.ok(found.includes("layer-text: src/text/tokens.ts -> src/stores/store.ts"), found.join("\n"));
      assert.ok(found.includes("layer-time: src/time/window.ts -> src/nodes/node.ts"), found.join("\n"));
      assert.ok(found.includes("no-unknown-layer: src/memory/a.ts -> src/helpers/misc.ts"), found.join("\n"));
      assert.ok(found.includes("no-entry-point-inside: src/cli/main.ts -> src/errors.ts"), found.join("\n"));
      assert.ok(!found.some((line) => line.startsWith("no-unknown-layer: src/errors.ts")), "an entry point beside index.ts may import the layers");
      assert.ok(found.some((line) => line.startsWith("no-circular: src/memory/")), found.join("\n"));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
