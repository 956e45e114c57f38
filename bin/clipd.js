#!/usr/bin/env node
// The package bin: builds on first use if needed, then runs the CLI.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
execFileSync(process.execPath, [path.join(root, "scripts", "ensure-build.mjs")], { stdio: "inherit" });
await import(path.join(root, "dist", "daemon", "boot", "main.js"));
