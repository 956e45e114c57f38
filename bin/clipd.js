#!/usr/bin/env node
// The package bin. clipd needs Node 24; the node a desktop client or a shell finds first may be
// older (a system Node 20), so under an older node this runs itself again under the project's own
// Node 24 (the `node` package in node_modules, put there by npm install). Then it builds on first
// use if needed, and runs the CLI. Nothing here writes to stdout: `clipd mcp --stdio` speaks
// JSON-RPC there.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const NEEDED_MAJOR = 24;
const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), "..");

if (Number(process.versions.node.split(".")[0]) < NEEDED_MAJOR) {
  const own = path.join(root, "node_modules", "node", "bin", "node");
  if (!existsSync(own)) {
    process.stderr.write(
      `clipd needs Node ${NEEDED_MAJOR} (this is ${process.version}); run npm install in ${root}, ` +
        `which puts Node ${NEEDED_MAJOR} in node_modules/node\n`,
    );
    process.exit(1);
  }
  const child = spawn(own, [...process.execArgv, self, ...process.argv.slice(2)], { stdio: "inherit" });
  // A client stops its server with a signal: pass it on, and leave as the child leaves.
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  // The build's own output goes to stderr, never to the JSON-RPC channel.
  execFileSync(process.execPath, [path.join(root, "scripts", "ensure-build.mjs")], { stdio: ["ignore", 2, 2] });
  await import(path.join(root, "dist", "daemon", "boot", "main.js"));
}
