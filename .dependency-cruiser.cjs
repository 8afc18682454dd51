/**
 * The layers of src/, lowest first. A folder may import its own files and the folders of lower tiers;
 * folders of one tier never import each other, except the graph and its nodes. src/README.md says what
 * each layer holds. `npm run check:layers` (and the test suite) fail on a violation.
 */
const TIERS = [
  ["core"],
  ["text", "time"],
  ["memory"],
  ["stores", "domain"],
  ["llm", "retrieval", "runtime"],
  ["planning", "reflection", "reranking", "ingest"],
  ["graph", "nodes"],
  ["library"],
  ["integrations", "server", "eval", "mcp"],
  ["cli"],
];
/** Pairs of one tier that are one unit: the graph wires its nodes, and the nodes read its state and configuration. */
const PARTNERS = { graph: ["nodes"], nodes: ["graph"] };

const tierOf = new Map(TIERS.flatMap((folders, tier) => folders.map((folder) => [folder, tier])));
const folders = [...tierOf.keys()];

const layerRules = folders.map((folder) => {
  const allowed = folders.filter((other) => other === folder || tierOf.get(other) < tierOf.get(folder) || PARTNERS[folder]?.includes(other));
  const refused = folders.filter((other) => !allowed.includes(other));
  return {
    name: `layer-${folder}`,
    comment: `src/${folder} may import only ${allowed.filter((other) => other !== folder).join(", ") || "nothing of ours"}`,
    severity: "error",
    from: { path: `^src/${folder}/` },
    to: { path: refused.length ? `^src/(${refused.join("|")})/` : "^$" },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "no-unknown-layer",
      comment: "every module of src/ lives in one of the layers above, or is an entry point of the package (src/index.ts and its subpaths' files beside it), which stand over them all",
      severity: "error",
      from: {},
      to: { path: "^src/", pathNot: [`^src/(${folders.join("|")})/`, "^src/[^/]+\\.ts$"] },
    },
    {
      name: "no-entry-point-inside",
      comment: "the layers never import an entry point of the package: those only gather what the layers export",
      severity: "error",
      from: { path: "^src/[^/]+/" },
      to: { path: "^src/[^/]+\\.ts$" },
    },
    {
      name: "no-circular",
      comment: "modules never import each other in a circle at run time (a type-only import back is harmless)",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|dist)/" },
  },
};
