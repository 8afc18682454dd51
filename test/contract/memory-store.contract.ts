/**
 * The behavioural contract of the MemoryStore port: what every adapter (sqlite, Qdrant, ...) must do.
 * An adapter's test file calls `runMemoryStoreContract` with a way to open its store; the cases are
 * registered as node:test `describe`/`it` blocks under `name`.
 *
 * The cases live in ./memory-store/, one file per operation group; this entry runs them all, in a
 * fixed order, on one shared context (see ./memory-store/shared.ts for the fixtures).
 */
import { describe } from "node:test";
import { badInputTests } from "./memory-store/bad-input.js";
import { deleteAndClearNamespaceTests } from "./memory-store/delete.js";
import { denseSearchTests } from "./memory-store/dense-search.js";
import { filteredSearchTests } from "./memory-store/filtered-search.js";
import { lexicalSearchTests } from "./memory-store/lexical-search.js";
import { expiryTests } from "./memory-store/expiry.js";
import { embeddingAndLifecycleTests } from "./memory-store/lifecycle.js";
import { listTests } from "./memory-store/list.js";
import { namespaceIsolationTests } from "./memory-store/namespace-isolation.js";
import { settingsVocabularyDocumentsStatsTests } from "./memory-store/settings-vocabulary-documents-stats.js";
import { type ContractContext, type ContractOptions, type OpenContractStore, useContractStores } from "./memory-store/shared.js";
import { supersessionTests } from "./memory-store/supersession.js";
import { upsertGetReplaceTests } from "./memory-store/upsert.js";

export { CONTRACT_EMBEDDING, type ContractOptions, type OpenContractStore, type StoreExtras } from "./memory-store/shared.js";

/** The operation groups, in the order they are registered (and reported). */
const CONTRACT_GROUPS: readonly ((context: ContractContext) => void)[] = [
  upsertGetReplaceTests,
  deleteAndClearNamespaceTests,
  denseSearchTests,
  lexicalSearchTests,
  filteredSearchTests,
  listTests,
  expiryTests,
  supersessionTests,
  namespaceIsolationTests,
  badInputTests,
  settingsVocabularyDocumentsStatsTests,
  embeddingAndLifecycleTests,
];

export function runMemoryStoreContract(name: string, openStore: OpenContractStore, options: ContractOptions): void {
  describe(`MemoryStore contract: ${name}`, () => {
    const context = useContractStores(openStore, options);
    for (const registerGroup of CONTRACT_GROUPS) registerGroup(context);
  });
}
