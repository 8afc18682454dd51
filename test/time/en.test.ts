import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findTimeExpressions, findTimeWindow } from "../../src/time/index.js";
import { assertWindow, type WindowCase } from "./expect-window.js";

// Wednesday 10 May 2023, 15:00 UTC.
const context = { now: new Date("2023-05-10T15:00:00Z"), timeZone: "UTC" };
const NOW = "2023-05-10T15:00:00.000Z";

const cases: WindowCase[] = [
  // days
  { text: "What did we do on May 8, 2023?", start: "2023-05-08T00:00:00.000Z", end: "2023-05-09T00:00:00.000Z", granularity: "day", expression: "May 8, 2023" },
  { text: "8 May 2023", start: "2023-05-08T00:00:00.000Z", end: "2023-05-09T00:00:00.000Z", granularity: "day" },
  { text: "What did I eat yesterday?", start: "2023-05-09T00:00:00.000Z", end: "2023-05-10T00:00:00.000Z", granularity: "day", expression: "yesterday" },
  { text: "today", start: "2023-05-10T00:00:00.000Z", end: "2023-05-11T00:00:00.000Z", granularity: "day" },
  { text: "3 days ago", start: "2023-05-07T00:00:00.000Z", end: "2023-05-08T00:00:00.000Z", granularity: "day" },
  { text: "three days ago", start: "2023-05-07T00:00:00.000Z", end: "2023-05-08T00:00:00.000Z", granularity: "day" },
  { text: "the day before yesterday", start: "2023-05-08T00:00:00.000Z", end: "2023-05-09T00:00:00.000Z", granularity: "day" },
  // weekdays: "last" = latest before today, bare/"on" = latest on or before today, "this"/"next" = ISO week
  { text: "What happened last Friday?", start: "2023-05-05T00:00:00.000Z", end: "2023-05-06T00:00:00.000Z", granularity: "day", expression: "last Friday" },
  { text: "What happened on Monday?", start: "2023-05-08T00:00:00.000Z", end: "2023-05-09T00:00:00.000Z", granularity: "day", expression: "on Monday" },
  { text: "on Wednesday", start: "2023-05-10T00:00:00.000Z", end: "2023-05-11T00:00:00.000Z", granularity: "day" },
  { text: "last Wednesday", start: "2023-05-03T00:00:00.000Z", end: "2023-05-04T00:00:00.000Z", granularity: "day" },
  { text: "this Sunday", start: "2023-05-14T00:00:00.000Z", end: "2023-05-15T00:00:00.000Z", granularity: "day" },
  { text: "next Monday", start: "2023-05-15T00:00:00.000Z", end: "2023-05-16T00:00:00.000Z", granularity: "day" },
  { text: "last Friday at 5pm", start: "2023-05-05T17:00:00.000Z", end: "2023-05-05T18:00:00.000Z", granularity: "instant" },
  // ISO weeks, Monday to Sunday
  { text: "What did Melanie do last week?", start: "2023-05-01T00:00:00.000Z", end: "2023-05-08T00:00:00.000Z", granularity: "week", expression: "last week" },
  { text: "this week", start: "2023-05-08T00:00:00.000Z", end: "2023-05-15T00:00:00.000Z", granularity: "week" },
  { text: "next week", start: "2023-05-15T00:00:00.000Z", end: "2023-05-22T00:00:00.000Z", granularity: "week" },
  { text: "the week before last", start: "2023-04-24T00:00:00.000Z", end: "2023-05-01T00:00:00.000Z", granularity: "week" },
  { text: "2 weeks ago", start: "2023-04-24T00:00:00.000Z", end: "2023-05-01T00:00:00.000Z", granularity: "week" },
  { text: "the week of May 1", start: "2023-05-01T00:00:00.000Z", end: "2023-05-08T00:00:00.000Z", granularity: "week", expression: "the week of May 1" },
  { text: "What did X do the week before 9 June 2023?", start: "2023-06-02T00:00:00.000Z", end: "2023-06-09T00:00:00.000Z", granularity: "range", expression: "the week before 9 June 2023" },
  { text: "the week after 9 June 2023", start: "2023-06-10T00:00:00.000Z", end: "2023-06-17T00:00:00.000Z", granularity: "range" },
  { text: "last weekend", start: "2023-05-06T00:00:00.000Z", end: "2023-05-08T00:00:00.000Z", granularity: "range" },
  { text: "over the weekend", start: "2023-05-06T00:00:00.000Z", end: "2023-05-08T00:00:00.000Z", granularity: "range" },
  // months (a month without a year is the latest one that has begun)
  { text: "last month", start: "2023-04-01T00:00:00.000Z", end: "2023-05-01T00:00:00.000Z", granularity: "month" },
  { text: "this month", start: "2023-05-01T00:00:00.000Z", end: "2023-06-01T00:00:00.000Z", granularity: "month" },
  { text: "What did she buy in May 2023?", start: "2023-05-01T00:00:00.000Z", end: "2023-06-01T00:00:00.000Z", granularity: "month", expression: "May 2023" },
  { text: "May 2023", start: "2023-05-01T00:00:00.000Z", end: "2023-06-01T00:00:00.000Z", granularity: "month" },
  { text: "in June 2023", start: "2023-06-01T00:00:00.000Z", end: "2023-07-01T00:00:00.000Z", granularity: "month" },
  { text: "in November", start: "2022-11-01T00:00:00.000Z", end: "2022-12-01T00:00:00.000Z", granularity: "month" },
  { text: "in March", start: "2023-03-01T00:00:00.000Z", end: "2023-04-01T00:00:00.000Z", granularity: "month" },
  { text: "last May", start: "2022-05-01T00:00:00.000Z", end: "2022-06-01T00:00:00.000Z", granularity: "month" },
  { text: "3 months ago", start: "2023-02-01T00:00:00.000Z", end: "2023-03-01T00:00:00.000Z", granularity: "month" },
  // meteorological seasons, northern hemisphere
  { text: "What did we do last summer?", start: "2022-06-01T00:00:00.000Z", end: "2022-09-01T00:00:00.000Z", granularity: "season", expression: "last summer" },
  { text: "in the spring of 2023", start: "2023-03-01T00:00:00.000Z", end: "2023-06-01T00:00:00.000Z", granularity: "season" },
  { text: "summer 2021", start: "2021-06-01T00:00:00.000Z", end: "2021-09-01T00:00:00.000Z", granularity: "season" },
  { text: "last winter", start: "2022-12-01T00:00:00.000Z", end: "2023-03-01T00:00:00.000Z", granularity: "season" },
  { text: "this spring", start: "2023-03-01T00:00:00.000Z", end: "2023-06-01T00:00:00.000Z", granularity: "season" },
  { text: "in the fall", start: "2022-09-01T00:00:00.000Z", end: "2022-12-01T00:00:00.000Z", granularity: "season" },
  // years
  { text: "What happened in 2022?", start: "2022-01-01T00:00:00.000Z", end: "2023-01-01T00:00:00.000Z", granularity: "year", expression: "2022" },
  { text: "What did Melanie paint last year?", start: "2022-01-01T00:00:00.000Z", end: "2023-01-01T00:00:00.000Z", granularity: "year", expression: "last year" },
  { text: "this year", start: "2023-01-01T00:00:00.000Z", end: "2024-01-01T00:00:00.000Z", granularity: "year" },
  { text: "the year before last", start: "2021-01-01T00:00:00.000Z", end: "2022-01-01T00:00:00.000Z", granularity: "year" },
  { text: "2 years ago", start: "2021-01-01T00:00:00.000Z", end: "2022-01-01T00:00:00.000Z", granularity: "year" },
  // rolling ranges: same wall-clock time N units ago, up to now
  { text: "What did I read in the past week?", start: "2023-05-03T15:00:00.000Z", end: NOW, granularity: "range", expression: "the past week" },
  { text: "the last 7 days", start: "2023-05-03T15:00:00.000Z", end: NOW, granularity: "range" },
  { text: "past few days", start: "2023-05-07T15:00:00.000Z", end: NOW, granularity: "range" },
  { text: "the past two weeks", start: "2023-04-26T15:00:00.000Z", end: NOW, granularity: "range" },
  { text: "in the last year", start: "2022-05-10T15:00:00.000Z", end: NOW, granularity: "range" },
  { text: "the past 3 months", start: "2023-02-10T15:00:00.000Z", end: NOW, granularity: "range" },
  // open ranges
  { text: "What has she painted since March?", start: "2023-03-01T00:00:00.000Z", end: NOW, granularity: "open", expression: "since March" },
  { text: "since last week", start: "2023-05-01T00:00:00.000Z", end: NOW, granularity: "open" },
  { text: "What happened before 2023?", start: null, end: "2023-01-01T00:00:00.000Z", granularity: "open", expression: "before 2023" },
  { text: "after May 2023", start: "2023-06-01T00:00:00.000Z", end: null, granularity: "open" },
  { text: "until May", start: null, end: "2023-06-01T00:00:00.000Z", granularity: "open" },
  { text: "before May 8, 2023", start: null, end: "2023-05-08T00:00:00.000Z", granularity: "open" },
  // explicit ranges: the end day is included
  { text: "What did we do between May 1 and May 10?", start: "2023-05-01T00:00:00.000Z", end: "2023-05-11T00:00:00.000Z", granularity: "range", expression: "between May 1 and May 10" },
  { text: "from 2023-05-01 to 2023-05-10", start: "2023-05-01T00:00:00.000Z", end: "2023-05-11T00:00:00.000Z", granularity: "range", expression: "from 2023-05-01 to 2023-05-10" },
  { text: "May 1 - May 10", start: "2023-05-01T00:00:00.000Z", end: "2023-05-11T00:00:00.000Z", granularity: "range" },
  { text: "between December 20 and January 5", start: "2022-12-20T00:00:00.000Z", end: "2023-01-06T00:00:00.000Z", granularity: "range" },
  { text: "between 2021 and 2022", start: "2021-01-01T00:00:00.000Z", end: "2023-01-01T00:00:00.000Z", granularity: "range" },
  { text: "from May to July 2022", start: "2022-05-01T00:00:00.000Z", end: "2022-08-01T00:00:00.000Z", granularity: "range" },
  // periods anchored on a date, as LoCoMo questions write them
  { text: "What did Maria do last weekend before April 10, 2023?", start: "2023-04-08T00:00:00.000Z", end: "2023-04-10T00:00:00.000Z", granularity: "range", expression: "last weekend before April 10, 2023" },
  { text: "over the weekend before 4th October, 2022", start: "2022-10-01T00:00:00.000Z", end: "2022-10-03T00:00:00.000Z", granularity: "range" },
  { text: "on the Friday before 22 August, 2022", start: "2022-08-19T00:00:00.000Z", end: "2022-08-20T00:00:00.000Z", granularity: "day" },
  { text: "What project did Jolene finish last week before 23 January, 2023?", start: "2023-01-16T00:00:00.000Z", end: "2023-01-23T00:00:00.000Z", granularity: "range" },
  { text: "Which country was Tim visiting in the second week of November?", start: "2022-11-08T00:00:00.000Z", end: "2022-11-15T00:00:00.000Z", granularity: "range", expression: "the second week of November" },
  { text: "the first weekend of August 2022", start: "2022-08-06T00:00:00.000Z", end: "2022-08-08T00:00:00.000Z", granularity: "range" },
  { text: "during the last week of August 2022", start: "2022-08-25T00:00:00.000Z", end: "2022-09-01T00:00:00.000Z", granularity: "range", expression: "the last week of August 2022" },
  { text: "Where was Dave in the last two weeks of August 2022?", start: "2022-08-18T00:00:00.000Z", end: "2022-09-01T00:00:00.000Z", granularity: "range", expression: "the last two weeks of August 2022" },
  { text: "in the first three days of June 2022", start: "2022-06-01T00:00:00.000Z", end: "2022-06-04T00:00:00.000Z", granularity: "range", expression: "the first three days of June 2022" },
  { text: "the first 2 weeks of 2022", start: "2022-01-01T00:00:00.000Z", end: "2022-01-15T00:00:00.000Z", granularity: "range" },
  // more than the month holds: the month, not weeks counted back from now
  { text: "in the last five weeks of February 2022", start: "2022-02-01T00:00:00.000Z", end: "2022-03-01T00:00:00.000Z", granularity: "month", expression: "the last five weeks of February 2022" },
  { text: "What changed in the last two weeks?", start: "2023-04-26T15:00:00.000Z", end: NOW, granularity: "range", expression: "the last two weeks" },
  { text: "in the last three months of 2022", start: "2022-10-01T00:00:00.000Z", end: "2023-01-01T00:00:00.000Z", granularity: "range", expression: "the last three months of 2022" },
  { text: "in the last month of 2022", start: "2022-12-01T00:00:00.000Z", end: "2023-01-01T00:00:00.000Z", granularity: "range", expression: "the last month of 2022" },
  { text: "the first 13 months of 2022", start: "2022-01-01T00:00:00.000Z", end: "2023-01-01T00:00:00.000Z", granularity: "year" },
  { text: "during the final week of April 2023", start: "2023-04-24T00:00:00.000Z", end: "2023-05-01T00:00:00.000Z", granularity: "range", expression: "the final week of April 2023" },
  // hours count back in real time from now
  { text: "What happened in the past 48 hours?", start: "2023-05-08T15:00:00.000Z", end: NOW, granularity: "range", expression: "the past 48 hours" },
  { text: "the last 3 hours", start: "2023-05-10T12:00:00.000Z", end: NOW, granularity: "range" },
  { text: "How long has Tim played the piano, as of December 2022?", start: null, end: "2023-01-01T00:00:00.000Z", granularity: "open", expression: "as of December 2022" },
  { text: "Where did Caroline move from 4 years ago?", start: "2019-01-01T00:00:00.000Z", end: "2020-01-01T00:00:00.000Z", granularity: "year", expression: "4 years ago" },
  { text: "from March on", start: "2023-03-01T00:00:00.000Z", end: NOW, granularity: "open" },
  // a hyphen after an ordinal word is not a code's ("mid-"), and an offset before a date stays one date
  { text: "Which classes did Evan join in mid-August 2022?", start: "2022-08-01T00:00:00.000Z", end: "2022-09-01T00:00:00.000Z", granularity: "month" },
  { text: "the puppy she got two weeks before August 11, 2022", start: "2022-07-28T00:00:00.000Z", end: "2022-07-29T00:00:00.000Z", granularity: "day" },
  { text: "What happened after the 3rd of May?", start: "2023-05-04T00:00:00.000Z", end: null, granularity: "open", expression: "after the 3rd of May" },
  // a start written without its year is in the end's year
  { text: "between April and June 2022", start: "2022-04-01T00:00:00.000Z", end: "2022-07-01T00:00:00.000Z", granularity: "range", expression: "between April and June 2022" },
  { text: "from October to February 2023", start: "2022-10-01T00:00:00.000Z", end: "2023-03-01T00:00:00.000Z", granularity: "range" },
  { text: "What did we try between March and May?", start: "2023-03-01T00:00:00.000Z", end: "2023-06-01T00:00:00.000Z", granularity: "range", expression: "between March and May" },
  // clock times
  { text: "1:56 pm on 8 May, 2023", start: "2023-05-08T13:56:00.000Z", end: "2023-05-08T14:56:00.000Z", granularity: "instant" },
];

describe("English time expressions (UTC, now Wednesday 2023-05-10 15:00)", () => {
  for (const expected of cases) it(expected.text, () => assertWindow(context, expected));
});

describe("English text with no time expression", () => {
  const none = [
    "When did Caroline go to the LGBTQ support group?",
    "How many kids does Melanie have? She has 3 kids.",
    "The build failed with ERR_1024 again.",
    "They march on.",
    "We sat down and ate.",
    "May I ask what you think?",
    "We stayed at 3 hotels.",
    "What is Caroline doing now?",
    "I fall asleep easily.",
    "The sun was out.",
    "Mondays are hard.",
    "When did Dave host a card-playing night with his friends?",
    "What does Deborah do after a morning jog in the park?",
    "What had Evan been searching for, for half an hour?",
    "Where did they travel for a few weeks?",
    "What is Dave doing to relax on weekends?",
    "C'mon, let's go!",
    "I still think about it to this day.",
    "After 3 years of marriage they moved.",
    "I started doing this a while back.",
    "It costs 2023 dollars",
    "miR-142-5P is a temperature-sensitive microRNA.",
    "Replacement of OCT4 and SOX2 genes with GATA3.",
    "Stronger spots for OmpF in 2D BN-PAGE gels.",
    "People who take part in six months of physical activity think faster.",
    "Dosage may not be diagnostic if symptoms start less than 3 hours before AMI.",
    "version 2.0.1",
    "",
  ];
  for (const text of none) it(JSON.stringify(text), () => assert.equal(findTimeWindow(text, context), undefined));
});

describe("findTimeExpressions", () => {
  it("lists every expression with its position, in text order", () => {
    const text = "We met last week and again yesterday, not in 2021.";
    const found = findTimeExpressions(text, context);
    assert.deepEqual(
      found.map((window) => [window.expression, window.index, window.length, window.granularity]),
      [
        ["last week", 7, 9, "week"],
        ["yesterday", 27, 9, "day"],
        ["2021", 45, 4, "year"],
      ],
    );
    for (const window of found) assert.equal(text.slice(window.index, window.index + window.length), window.expression);
  });

  it("ends an expression at its last word, not at chrono's trailing comma", () => {
    assert.deepEqual(
      findTimeExpressions("Since March, I paint.", context).map((window) => window.expression),
      ["Since March"],
    );
  });

  it("returns the first expression from findTimeWindow", () => {
    assert.equal(findTimeWindow("yesterday, or last week?", context)?.expression, "yesterday");
    // A year or a month that may describe a thing does not move the window either.
    assert.equal(findTimeWindow("What did we decide last week about the 2024 budget?", context)?.expression, "last week");
    assert.equal(findTimeWindow("We met last week and again yesterday, not in May 2021.", context)?.expression, "last week");
  });

  it("takes a whole date written with its year over relative words, which the date then says when were said", () => {
    assertWindow(context, { text: "What did Joanna just finish last Friday on 23 January, 2022?", start: "2022-01-23T00:00:00.000Z", end: "2022-01-24T00:00:00.000Z", granularity: "day", expression: "on 23 January, 2022" });
    assertWindow(context, { text: "What was Tim's writing issue last week, as mentioned on November 6, 2022?", start: "2022-11-06T00:00:00.000Z", end: "2022-11-07T00:00:00.000Z", granularity: "day", expression: "November 6, 2022" });
    // A date without its year is read from now, as the relative words are: the first expression stays.
    assert.equal(findTimeWindow("What did Tim say last week about the trip on June 9?", context)?.expression, "last week");
  });
});
