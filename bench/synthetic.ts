/**
 * Deterministic synthetic memories and questions for the speed benchmark: short first-person
 * statements by a few dozen people about activities, places and dates, the shape of dialogue
 * memories, none of them taken from any dataset. The same seed always gives the same texts.
 */
import type { MemoryInput } from "../src/memory/entry.js";

const PEOPLE = [
  "Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lea", "Mateo", "Nia",
  "Oskar", "Pia", "Quentin", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wim", "Xenia", "Yusuf", "Zoe",
];
const ACTIVITIES = [
  "went bouldering", "baked sourdough", "repaired a bicycle", "started a herb garden", "adopted a rescue dog",
  "ran a half marathon", "learned to knit", "visited a glass museum", "painted a lighthouse", "joined a choir",
  "planned a kayak trip", "tried a ramen recipe", "built a bookshelf", "volunteered at a food bank",
  "took a pottery class", "watched a meteor shower", "wrote a short story", "fixed the kitchen sink",
  "organised a chess tournament", "practised the cello", "hiked to a waterfall", "sewed a quilt",
  "photographed street murals", "gave a talk on beekeeping", "restored an old radio", "went birdwatching",
];
const PLACES = [
  "Lisbon", "Porto", "Ghent", "Tartu", "Bergen", "Lyon", "Graz", "Cork", "Kyoto", "Oaxaca", "Hobart", "Tromsø",
  "the community centre", "the riverside park", "the old library", "the night market",
];
const FEELINGS = [
  "and loved every minute", "though it rained the whole time", "with a couple of friends", "for the first time",
  "and wants to do it again soon", "which turned out harder than expected", "to take a break from work",
  "after thinking about it for months", "and shared photos with everyone", "on a quiet Sunday",
];
const QUESTION_SHAPES = [
  (person: string, activity: string) => `When did ${person} say they ${activity}?`,
  (person: string, activity: string) => `What did ${person} do last month?`,
  (person: string, activity: string) => `Where was ${person} when they ${activity}?`,
  (person: string, activity: string) => `Who ${activity} with friends?`,
  (person: string, activity: string) => `How did ${person} feel after they ${activity}?`,
];

export const SYNTHETIC_START_MS = Date.parse("2022-01-03T09:00:00Z");
const SPAN_MS = 730 * 86_400_000;
/** The reference time questions are asked at: the end of the synthetic span. */
export const SYNTHETIC_NOW = new Date(SYNTHETIC_START_MS + SPAN_MS).toISOString();

/** A small seeded generator (mulberry32), so runs are repeatable without a dependency. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A direction uniform on the unit sphere: Gaussian components (Box-Muller), normalised. */
export function randomUnitVector(random: () => number, dimension: number): number[] {
  const vector = new Array<number>(dimension);
  let sum = 0;
  for (let i = 0; i < dimension; i += 1) {
    const value = Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
    vector[i] = value;
    sum += value * value;
  }
  const norm = Math.sqrt(sum);
  return vector.map((value) => value / norm);
}

/** One item of a non-empty list, chosen by `random`. */
export function pick<T>(random: () => number, list: readonly T[]): T {
  const item = list[Math.floor(random() * list.length)];
  if (item === undefined) throw new RangeError("cannot pick from an empty list");
  return item;
}

/** `count` memories, ids m0..m(count-1), timestamps spread over two years in order. */
export function syntheticMemories(count: number, seed = 7): MemoryInput[] {
  return [...syntheticMemoryBatches(count, Math.max(1, count), seed)].flat();
}

/**
 * The same memories as syntheticMemories(count, seed), in order, `batchSize` at a time: a caller that
 * writes them batch by batch never holds them all (72 MB of objects at 100k).
 */
export function* syntheticMemoryBatches(count: number, batchSize: number, seed = 7): Generator<MemoryInput[]> {
  const random = seededRandom(seed);
  for (let start = 0; start < count; start += batchSize) {
    const batch: MemoryInput[] = [];
    for (let i = start; i < Math.min(count, start + batchSize); i += 1) batch.push(syntheticMemory(random, i, count));
    yield batch;
  }
}

/** Memory `i` of `count`, its words drawn from `random`. */
function syntheticMemory(random: () => number, i: number, count: number): MemoryInput {
  const person = pick(random, PEOPLE);
  const friend = pick(random, PEOPLE);
  const activity = pick(random, ACTIVITIES);
  const place = pick(random, PLACES);
  const text = `${person} said: I ${activity} in ${place} ${pick(random, FEELINGS)}, and ${friend} came along.`;
  return {
    id: `m${i}`,
    text,
    timestamp: SYNTHETIC_START_MS + Math.floor((i / count) * SPAN_MS),
    persons: person === friend ? [person] : [person, friend],
    speaker: person,
    entities: [],
    location: place,
    keywords: activity.split(" ").filter((word) => word.length > 3),
    source: { turnIds: [`T${i}`] },
  };
}

/** `count` questions in the memories' vocabulary: names, activities, a time expression now and then. */
export function syntheticQuestions(count: number, seed = 11): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => pick(random, QUESTION_SHAPES)(pick(random, PEOPLE), pick(random, ACTIVITIES)));
}
