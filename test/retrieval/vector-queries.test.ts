import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Embeddings } from "@langchain/core/embeddings";
import { vectorQueryOf } from "../../src/planning/known-names.js";
import type { Embedder } from "../../src/text/embedder.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { chatMemory, teamMemory } from "../support/graph-fixture.js";
import { NOW } from "../support/team-memory.js";

/** The hashing embedder, keeping every text it is asked to embed as a query (a question or a sub-query). */
function recordingEmbedder(): { embedder: Embedder; asked: string[] } {
  const hash = createEmbedder({ provider: "hash", dimension: 256 });
  const asked: string[] = [];
  class RecordingEmbeddings extends Embeddings {
    constructor() {
      super({});
    }
    embedDocuments(texts: string[]) {
      asked.push(...texts);
      return hash.embeddings.embedDocuments(texts);
    }
    embedQuery(text: string) {
      asked.push(text);
      return hash.embeddings.embedQuery(text);
    }
  }
  return { embedder: { ...hash, embeddings: new RecordingEmbeddings() }, asked };
}

describe("what a query is embedded as", () => {
  it("leaves out the persons the plan asks about, whole and by their parts, unless nothing else is left", () => {
    assert.equal(vectorQueryOf("What did Caroline paint?", ["Caroline"]).replace(/\s+/g, " ").trim(), "What did paint?");
    assert.doesNotMatch(vectorQueryOf("Where does Alice Chen work, and what did Chen build?", ["Alice Chen"]), /Alice|Chen/);
    assert.equal(vectorQueryOf("Caroline", ["Caroline"]), "Caroline", "a query that is nothing but a name keeps it");
    assert.equal(vectorQueryOf("What did Caroline paint?", []), "What did Caroline paint?");
    assert.equal(vectorQueryOf("What did Caroline paint?", ["Melanie"]), "What did Caroline paint?", "a name the plan did not ask about stays");
  });

  it("is what the semantic view embeds: the named person's memories are found by the other views, not by the vector", async () => {
    const { embedder, asked } = recordingEmbedder();
    const memory = await teamMemory({ embedder });
    try {
      asked.length = 0;
      const output = await memory.retrieve({ question: "What did Dave fix in the billing service?", namespace: "team", now: NOW });
      assert.ok(asked.length > 0, "the question was embedded");
      for (const text of asked) assert.doesNotMatch(text, /Dave/, `embedded "${text}"`);
      assert.ok(asked.some((text) => /billing service/.test(text)), "the rest of the question is embedded");
      assert.equal(output.results[0]?.id, "err-1024", "Dave's memory is still found first");
    } finally {
      await memory.close();
    }
  });

  it("ranks a conversation's turns by what they say, not by how often they name the person", async () => {
    // The hashing embedder's cosine is word overlap: with the name in the vector, the turn that names
    // Caroline three times is nearest; without it, the one about painting is.
    const memory = await chatMemory([
      { id: "greeting", speaker: "Melanie", text: "Caroline! Caroline, so good to see you, Caroline.", timestamp: "2026-11-01T10:00:00Z" },
      { id: "painting", speaker: "Caroline", text: "I painted a sunrise over the lake last weekend.", timestamp: "2026-11-01T10:00:01Z" },
      { id: "weather", speaker: "Melanie", text: "The weather was lovely over the weekend.", timestamp: "2026-11-01T10:00:02Z" },
    ]);
    try {
      const output = await memory.retrieve(
        { question: "What did Caroline paint?", namespace: "chat", now: NOW },
        { views: ["semantic"], reflection: false, contextVotes: { ranking: 0, wordsReading: 0 } },
      );
      assert.equal(output.results[0]?.id, "painting");
    } finally {
      await memory.close();
    }
  });
});
