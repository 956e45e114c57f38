// A failed step's message as clients see it: no server paths, no ffmpeg pointer tags, one line;
// links the user gave are kept whole.
import { describe, expect, it } from "vitest";
import { clientErrorMessage } from "../../daemon/engine/client-error.js";

describe("clientErrorMessage", () => {
  it("strips absolute paths and keeps the first meaningful line of ffmpeg's stderr", () => {
    const raw =
      "ffmpeg exited with code 1: [in#0 @ 0x55d1c2a3e0c0] Error opening input: " +
      "Invalid data found when processing input | /var/lib/clipd/work/run-1b2c/source.mp4: " +
      "Invalid data found when processing input | Error opening input files: " +
      "Invalid data found when processing input";
    expect(clientErrorMessage(raw)).toBe(
      "ffmpeg exited with code 1: Error opening input: Invalid data found when processing input",
    );
    expect(
      clientErrorMessage(
        "ffprobe exited with code 1: /tmp/clipd-free-probe-x1/head.mp3: Invalid data found\nsecond line /etc/passwd",
      ),
    ).toBe("ffprobe exited with code 1: head.mp3: Invalid data found");
    expect(clientErrorMessage("could not open subtitles=/srv/clipd/data/storage/ab/c.ass for reading")).toBe(
      "could not open subtitles=c.ass for reading",
    );
    expect(clientErrorMessage("read failed: file:/home/clipd/x/y.wav")).toBe("read failed: y.wav");
  });

  it("keeps links and plain messages as they are", () => {
    expect(clientErrorMessage("https://media.example.com/a/b/c.mp3 answered 404")).toBe(
      "https://media.example.com/a/b/c.mp3 answered 404",
    );
    expect(clientErrorMessage("the file is 700 s long, over the limit of 600 s")).toBe(
      "the file is 700 s long, over the limit of 600 s",
    );
    expect(clientErrorMessage("a/b and 3/4 of it")).toBe("a/b and 3/4 of it");
  });

  it("never returns more than one line of at most 300 characters", () => {
    const out = clientErrorMessage(`${"x".repeat(500)}\nmore`);
    expect(out.length).toBe(300);
    expect(out).not.toContain("\n");
  });
});
