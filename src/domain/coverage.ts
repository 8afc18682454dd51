/** What a hit must be to answer one of the rule judge's gap queries. */
export interface GapCondition {
  /** Words it must mention: "John adopt" for "John adopt"; "Bob Müller" for a second hop "Bob Müller city live". */
  mentions?: string;
  /** Whose words it must be: the speaker the question is about, when it is asked again among their own words. */
  spokenBy?: string;
}

/** A judge's verdict on one round: how much of the plan the top results cover, and what to ask next. */
export interface Coverage {
  complete: boolean;
  percent: number;
  missing: string[];
  gapQueries: string[];
  /** The rule judge's gap queries with their conditions. A model's gap queries are free text and have none. */
  gapConditions?: Record<string, GapCondition>;
  judge: "llm" | "rules" | "off";
}
