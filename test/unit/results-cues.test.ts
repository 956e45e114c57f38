// The results page's WebVTT reading (web/src/pages/results-cues.ts), checked against a real WebVTT
// parser (webvtt-parser) on the same files: same times, same text without the tags.
import { describe, expect, it } from "vitest";
import { WebVTTParser } from "webvtt-parser";
import { clock, cueAt, parseVtt, seconds } from "../../web/src/pages/results-cues.js";

const VTT = `WEBVTT
Kind: captions

NOTE a note with a --> arrow is not a cue

STYLE
::cue { color: yellow }

1
00:00:00.000 --> 00:00:03.500 align:start
<v Speaker 1>And so, my fellow Americans,</v>

intro-2
00:03.500 --> 00:07.250
ask not what your country
can do for you &amp; me

01:02:03.004 --> 01:02:04.000
Tom &lt;Jr&gt;
`;

describe("WebVTT cues", () => {
  it("reads the times and text of each cue as a real parser does", () => {
    const ours = parseVtt(VTT);
    const theirs = new WebVTTParser().parse(VTT, "metadata").cues.map((c: any) => ({
      start: c.startTime,
      end: c.endTime,
      text: c.text
        .replace(/<[^>]*>/g, "")
        .replace(/&amp;/g, "&")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/\s+/g, " ")
        .trim(),
    }));
    expect(ours).toEqual(theirs);
    expect(ours.map((c) => c.text)).toEqual([
      "And so, my fellow Americans,",
      "ask not what your country can do for you & me",
      "Tom <Jr>",
    ]);
    expect(ours[2]!.start).toBeCloseTo(3723.004, 6);
  });

  it("takes CRLF files and SRT-style commas, and skips blocks without a timing line", () => {
    expect(parseVtt("WEBVTT\r\n\r\n00:00:01,000 --> 00:00:02,000\r\nhello\r\n\r\njunk\r\n")).toEqual([
      { start: 1, end: 2, text: "hello" },
    ]);
    expect(parseVtt("WEBVTT\n")).toEqual([]);
    expect(seconds("1:00:00.5")).toBe(3600.5);
  });

  it("lights the last cue started, through gaps, and none before the first", () => {
    const cues = [
      { start: 1, end: 2, text: "a" },
      { start: 3, end: 4, text: "b" },
      { start: 4, end: 6, text: "c" },
    ];
    expect([0, 1, 1.5, 2.5, 3, 4, 10].map((t) => cueAt(cues, t))).toEqual([-1, 0, 0, 0, 1, 2, 2]);
    expect(cueAt([], 5)).toBe(-1);
  });

  it("shows times as m:ss or h:mm:ss", () => {
    expect([0, 9.9, 65, 3723].map(clock)).toEqual(["0:00", "0:09", "1:05", "1:02:03"]);
  });
});
