/**
 * A small memory of our own writing, shared by the graph tests: a team's November 2026, with people,
 * places, product codes, dates, and one Chinese entry. NOW is Wednesday 18 November 2026, so
 * "last week" is Monday 9 to Sunday 15 November.
 */
import type { MemoryInput } from "../../src/memory/entry.js";

export const NOW = "2026-11-18T10:00:00.000Z";

export const TEAM: Array<MemoryInput & { id: string }> = [
  {
    id: "shanghai-meeting",
    text: "Alice met Bob in Shanghai on 10 November 2026 to discuss the launch plan for product XYZ-100.",
    persons: ["Alice", "Bob"],
    entities: ["XYZ-100"],
    location: "Shanghai",
    timestamp: "2026-11-10T09:00:00Z",
  },
  {
    id: "berlin-call",
    text: "Alice called Carol from Berlin on 12 November 2026 about pricing for product XYZ-100.",
    persons: ["Alice", "Carol"],
    entities: ["XYZ-100"],
    location: "Berlin",
    timestamp: "2026-11-12T15:00:00Z",
  },
  {
    id: "err-1024",
    text: "Dave fixed error ERR_1024 in the billing service on 2 November 2026.",
    persons: ["Dave"],
    entities: ["ERR_1024"],
    timestamp: "2026-11-02T11:00:00Z",
  },
  {
    id: "err-2048",
    text: "Dave saw error ERR_2048 during the deploy of the search service on 3 November 2026.",
    persons: ["Dave"],
    entities: ["ERR_2048"],
    timestamp: "2026-11-03T16:00:00Z",
  },
  {
    id: "expense-policy",
    text: "报销标准是每天三百元，上周在上海开会的差旅也按这个标准报销。",
    location: "上海",
    timestamp: "2026-11-11T08:00:00Z",
  },
  {
    id: "bob-sister",
    text: "Bob's sister Erin lives in Lisbon and works as a nurse.",
    persons: ["Bob", "Erin"],
    location: "Lisbon",
    timestamp: "2026-10-01T12:00:00Z",
  },
  {
    id: "alice-cat",
    text: "Alice adopted a cat named Miso in September 2026.",
    persons: ["Alice"],
    timestamp: "2026-09-05T12:00:00Z",
  },
  {
    id: "carol-hiking",
    text: "Carol went hiking in the Alps with her brother in August 2026.",
    persons: ["Carol"],
    location: "Alps",
    timestamp: "2026-08-20T12:00:00Z",
  },
];

/** Another team's namespace holding a look-alike memory: it must never leak into TEAM's answers. */
export const RIVALS: Array<MemoryInput & { id: string }> = [
  {
    id: "shanghai-meeting",
    text: "Alice met Bob in Shanghai to discuss product XYZ-100 secretly (rival team).",
    persons: ["Alice", "Bob"],
    entities: ["XYZ-100"],
    location: "Shanghai",
    timestamp: "2026-11-10T10:00:00Z",
  },
];
