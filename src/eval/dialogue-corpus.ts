import { chunkDocument } from "../ingest/chunker.js";
import type { Dialogue } from "../ingest/dialogue.js";
import { buildDialogue, ingestDialogue, type DialogueBuilderSettings } from "../ingest/dialogue-ingest.js";
import { turnEntryId } from "../ingest/dialogue-rules.js";
import { MAX_TEXT_CHARS } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";
import type { CachedEmbeddings } from "./cached-embeddings.js";
import type { EvalEmbedder, EvalProgress } from "./harness.js";
import type { CorpusEntry, JudgedIdsOf } from "./peers.js";

/**
 * The corpus of the dialogue benchmarks (LoCoMo, BEAM, RealMem): each conversation written by the
 * product's rule-based memory builder, one entry per turn, into its namespace, as a user's `ingest`
 * of the same dialogue would write it. A benchmark brings, per conversation, the namespace, the
 * dialogue and what an entry's source turns are judged as.
 */

/** One conversation (or one session of one) as the evaluation writes it. */
export interface DialogueConversation {
  namespace: string;
  dialogue: Dialogue;
  /** The judged ids that entries built from these turns stand for (LoCoMo: the turn ids; BEAM: the message a part belongs to). */
  judgedIdsOf: (turnIds: readonly string[]) => string[];
}

/** Room kept in a part of a long message for the builder's "assistant said: " frame. */
const FRAME_ROOM = 64;

/**
 * A message's text as turns: itself, or, when longer than a memory may be, consecutive parts cut by
 * the product's chunker (a runaway answer of 18k to 350k characters, cut off, could never be found by
 * its tail; split, each part ranks as its message).
 */
export function messageParts(content: string): string[] {
  if (content.length <= MAX_TEXT_CHARS - FRAME_ROOM) return [content];
  return chunkDocument(content, { maxChars: MAX_TEXT_CHARS - FRAME_ROOM, format: "text" }).map((chunk) => chunk.body);
}

/** The turn id of part `n` of a message split by `messageParts` (the message's own id when it is whole). */
export function partTurnId(messageId: string, part: number, parts: number): string {
  return parts === 1 ? messageId : `${messageId}#${part + 1}`;
}

/** The message id a turn id stands for: a part `17#2` is message 17. */
export function messageOfTurn(turnId: string): string {
  const hash = turnId.indexOf("#");
  return hash < 0 ? turnId : turnId.slice(0, hash);
}

/** What a returned recallgraph result stands for, by its namespace's conversation (the harness's `judgedIdsOf`). */
export function resultJudgedIds(conversations: readonly DialogueConversation[]): JudgedIdsOf {
  const byNamespace = new Map(conversations.map((conversation) => [conversation.namespace, conversation.judgedIdsOf]));
  return (result) => {
    const turnIds = result.source?.turnIds ?? [];
    const judged = byNamespace.get(result.namespace);
    return judged ? judged(turnIds) : [...turnIds];
  };
}

/** Builds each conversation's entries once and embeds every text up front, in one length-sorted pass, so the writes find them cached. */
export async function embedDialogueEntries(
  conversations: readonly DialogueConversation[],
  builder: DialogueBuilderSettings,
  embeddings: CachedEmbeddings,
  progress: (progress: EvalProgress) => void,
): Promise<void> {
  // A turn's text does not depend on what its namespace holds, so a build without the store gives the texts the writes embed.
  const built = await Promise.all(
    conversations.map(async (conversation) => (await buildDialogue(conversation.namespace, conversation.dialogue, { builder })).memories),
  );
  await embeddings.warm(
    built.flatMap((memories) => memories.map((memory) => memory.text.trim())),
    (done, total) => progress({ phase: "embed entries", done, total }),
  );
}

/** How the conversations are saved: whole, or a few turns at a time (`turnsPerSave`) as an agent saves them. */
export interface DialogueSaving {
  builder: DialogueBuilderSettings;
  turnsPerSave?: number | undefined;
}

/** The saving a dialogue benchmark's settings ask for. */
export function savingOf(settings: { builder?: DialogueBuilderSettings | undefined; turnsPerSave?: number | undefined }): DialogueSaving {
  return { builder: settings.builder ?? {}, turnsPerSave: settings.turnsPerSave };
}

/**
 * Writes each conversation through the product's ingest, as a user's save of it would: whole, or with
 * `turnsPerSave` that many turns at a time; returns what was stored, by namespace, as the peers index
 * it. Conversations sharing a namespace add to it.
 */
export async function writeDialogueCorpus(
  store: MemoryStore,
  embedder: EvalEmbedder,
  conversations: readonly DialogueConversation[],
  saving: DialogueSaving,
  progress: (progress: EvalProgress) => void,
): Promise<Map<string, CorpusEntry[]>> {
  const corpus = new Map<string, CorpusEntry[]>();
  progress({ phase: "ingest", done: 0, total: conversations.length });
  for (const [i, conversation] of conversations.entries()) {
    const { namespace, dialogue } = conversation;
    const per = saving.turnsPerSave ?? dialogue.turns.length;
    for (let start = 0; start < dialogue.turns.length; start += per) {
      await ingestDialogue(store, embedder, namespace, { ...dialogue, turns: dialogue.turns.slice(start, start + per) }, { builder: saving.builder });
    }
    const entries = await store.get(namespace, dialogue.turns.map((turn) => turnEntryId(namespace, turn.turnId)));
    const stored = entries.map((entry) => ({ id: entry.id, text: entry.text, judgedIds: conversation.judgedIdsOf(entry.source?.turnIds ?? []) }));
    corpus.set(namespace, [...(corpus.get(namespace) ?? []), ...stored]);
    progress({ phase: "ingest", done: i + 1, total: conversations.length });
  }
  return corpus;
}
