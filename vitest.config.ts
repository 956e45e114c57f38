import { defineConfig } from "vitest/config";
import TierSequencer from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 600_000, // generous: CI machines are shared and can be several times slower; tests wait on state
    hookTimeout: 600_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: TierSequencer },
    // Every clipd a test starts, in-process or as a child, leaves the whisper model alone (issue 29:
    // transcribe.auto_model fetches base.en from the internet otherwise).
    env: { CLIPD_AUTO_MODEL: "off" },
  },
});
