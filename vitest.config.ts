import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 600_000, // generous: CI machines are shared and can be several times slower; tests wait on state
    hookTimeout: 600_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
});
