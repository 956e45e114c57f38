// Type-aware rules only: Biome (biome.json) formats and runs every other lint rule. These need the
// TypeScript checker, which Biome does not have: a promise left floating or passed where a plain
// callback is expected is a real defect (an unhandled rejection, a handler that never waits).
import tseslint from "typescript-eslint";

const promiseRules = {
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/no-misused-promises": "error",
  "@typescript-eslint/await-thenable": "error",
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "test/**", "scripts/**", "bin/**", "**/*.mjs", "**/*.cjs", "**/*.js"] },
  {
    files: ["daemon/**/*.ts", "plugins/**/*.ts", "facade/**/*.ts", "config/**/*.ts", "bench/**/*.ts"],
    languageOptions: { parser: tseslint.parser, parserOptions: { project: "./tsconfig.json" } },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: promiseRules,
  },
  {
    files: ["web/src/**/*.ts", "web/src/**/*.tsx"],
    languageOptions: { parser: tseslint.parser, parserOptions: { project: "./web/tsconfig.json" } },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: promiseRules,
  },
);
