import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { NamespaceSchema } from "../memory/entry.js";
import { parseDialogue, type Dialogue, type DialogueTurn } from "./dialogue.js";
import { describeSessionDateSpellings, parseSessionDateTime } from "./session-date.js";

/**
 * Importer for the LoCoMo benchmark format (../shared/data/locomo/README.md): a list of samples,
 * each a two-person conversation in numbered sessions plus questions with evidence turn ids.
 * Unknown extra fields are tolerated (the release carries img_url, query, re-download...).
 */
const LocomoTurnSchema = z.looseObject({
  speaker: z.string().trim().min(1, "speaker must not be empty"),
  dia_id: z.string().trim().min(1, "dia_id must not be empty"),
  text: z.string(),
  blip_caption: z.string().optional(),
});

const LocomoQuestionSchema = z.looseObject({
  question: z.string(),
  // Evidence is kept as written: a few release items are malformed ("D:11:26", "D8:6; D9:17") and
  // the evaluation counts and skips them rather than guessing.
  evidence: z.array(z.string()),
  category: z.number().int(),
});

const LocomoSampleSchema = z.looseObject({
  sample_id: NamespaceSchema,
  conversation: z.looseObject({
    speaker_a: z.string().trim().min(1),
    speaker_b: z.string().trim().min(1),
  }),
  qa: z.array(LocomoQuestionSchema).optional(),
});

const LocomoFileSchema = z.array(LocomoSampleSchema).min(1, "a LoCoMo file needs at least one sample");

/** A question of the benchmark: what is asked, which turns hold the answer, its category (1-5). Answers are not imported. */
export interface LocomoQuestion {
  question: string;
  evidence: string[];
  category: number;
}

export interface LocomoConversation {
  /** The sample's id, e.g. "conv-26": the namespace its memories go to. */
  sampleId: string;
  speakers: [string, string];
  dialogue: Dialogue;
  questions: LocomoQuestion[];
  /** Start of the last session that has turns (UTC ISO): the reference time for asking about this conversation. */
  lastSessionTime: string;
}

/**
 * Parses a LoCoMo file (already JSON-parsed) into conversations: each session's turns in order, the
 * turn time being the session's date_time (any spelling of `SESSION_DATE_SPELLINGS`) plus one second
 * per turn (so order survives sorting by time), dia_id as turnId, blip_caption as image caption, "session_N" as sessionId.
 * Errors are ValidationErrors naming the sample and field, e.g. `conv-26.conversation.session_3_date_time`.
 */
export function parseLocomo(json: unknown): LocomoConversation[] {
  const samples = parseOrThrow(LocomoFileSchema, json, "");
  const seen = new Set<string>();
  return samples.map((sample, sampleIndex) => {
    const where = sample.sample_id;
    if (seen.has(sample.sample_id)) throw new ValidationError(`${sampleIndex}.sample_id`, `duplicate sample_id "${sample.sample_id}"`);
    seen.add(sample.sample_id);
    const conversation = sample.conversation;
    const sessionNumbers = Object.keys(conversation)
      .map((key) => /^session_(\d+)$/.exec(key)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);

    const turns: DialogueTurn[] = [];
    let lastSessionMs: number | undefined;
    for (const n of sessionNumbers) {
      const key = `session_${n}`;
      const sessionTurns = parseOrThrow(z.array(LocomoTurnSchema), conversation[key], `${where}.conversation.${key}`);
      if (sessionTurns.length === 0) continue;
      const dateKey = `${key}_date_time`;
      const dateText = conversation[dateKey];
      const startMs = typeof dateText === "string" ? parseSessionDateTime(dateText) : undefined;
      if (startMs === undefined) {
        throw new ValidationError(`${where}.conversation.${dateKey}`, `${describeSessionDateSpellings()}; got ${JSON.stringify(dateText ?? null)}`);
      }
      lastSessionMs = Math.max(lastSessionMs ?? startMs, startMs);
      sessionTurns.forEach((turn, i) => {
        const dialogueTurn: DialogueTurn = {
          turnId: turn.dia_id,
          speaker: turn.speaker,
          text: turn.text,
          time: new Date(startMs + i * 1000).toISOString(),
          sessionId: key,
        };
        const caption = turn.blip_caption?.trim();
        if (caption) dialogueTurn.imageCaption = caption;
        turns.push(dialogueTurn);
      });
    }
    if (turns.length === 0 || lastSessionMs === undefined) {
      throw new ValidationError(`${where}.conversation`, "no session with turns (expected session_1: [...])");
    }
    const speakers: [string, string] = [conversation.speaker_a, conversation.speaker_b];
    return {
      sampleId: sample.sample_id,
      speakers,
      dialogue: parseDialogue({ participants: speakers, turns }, where),
      questions: (sample.qa ?? []).map((qa) => ({ question: qa.question, evidence: qa.evidence, category: qa.category })),
      lastSessionTime: new Date(lastSessionMs).toISOString(),
    };
  });
}
