/** The two versions of one source that concurrent-origin-qdrant.test.ts has two processes ingest, round after round. */

export const NAMESPACE = "depot";
export const ORIGIN = "parcels";
/** Lines per version: half share their ids with the other version (with other text), half are the version's own. */
export const LINES = 120;

function lineId(name: string, round: number, i: number): string {
  return i < LINES / 2 ? `shared-${i}` : `${name}-r${round}-${i}`;
}

export function lineText(name: string, round: number, i: number): string {
  return `Line ${i} of version ${name}, round ${round}.`;
}

export function versionIds(name: string, round: number): string[] {
  return Array.from({ length: LINES }, (_, i) => lineId(name, round, i)).sort();
}

export function versionText(name: string, round: number): string {
  return Array.from({ length: LINES }, (_, i) => JSON.stringify({ id: lineId(name, round, i), text: lineText(name, round, i) })).join("\n");
}
