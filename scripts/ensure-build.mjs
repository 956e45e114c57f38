// Builds dist/ with tsc when any source file is newer than the last build, and the website (web/,
// type-checked, then bundled by Vite into dist/web/) when its sources are newer than its last build,
// so `npm start` and `npm test` work straight after `npm install`. Also refuses to go on with a
// Node older than 22.12.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `clipd needs Node >= 22.12; this is ${process.version}. Run it through ` +
      `npm scripts (npm start), which use the Node 24 that npm install brings.`,
  );
  process.exit(1);
}
const stamp = path.join(root, "dist", ".build-stamp");
function newest(dir, pattern = /\.(ts|json)$/) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p, pattern));
    else if (pattern.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}
const run = (label, args) => {
  console.error(`clipd: building (${label})…`);
  try {
    execFileSync(process.execPath, args, { stdio: "inherit", cwd: root });
  } catch {
    process.exit(1);
  }
};
const node_modules = (...p) => path.join(root, "node_modules", ...p);

// The website: its own stamp inside dist/web/, written after Vite (which empties that folder).
const webStamp = path.join(root, "dist", "web", ".build-stamp");
const webSources = existsSync(path.join(root, "web"))
  ? newest(path.join(root, "web"), /\.(ts|tsx|css|html|json|svg|txt)$/)
  : 0;
if (webSources && !(existsSync(webStamp) && statSync(webStamp).mtimeMs >= webSources)) {
  run("web: tsc", [node_modules("typescript", "bin", "tsc"), "-p", path.join(root, "web", "tsconfig.json")]);
  run("web: vite", [
    node_modules("vite", "bin", "vite.js"),
    "build",
    "--config",
    path.join(root, "web", "vite.config.ts"),
  ]);
  writeFileSync(webStamp, new Date().toISOString());
}

const sources = Math.max(
  ...["daemon", "plugins", "facade", "config", "bench"]
    .filter((d) => existsSync(path.join(root, d)))
    .map((d) => newest(path.join(root, d))),
  statSync(path.join(root, "tsconfig.json")).mtimeMs,
);
if (existsSync(stamp) && statSync(stamp).mtimeMs >= sources) process.exit(0);
run("tsc", [node_modules("typescript", "bin", "tsc"), "-p", path.join(root, "tsconfig.json")]);
writeFileSync(stamp, new Date().toISOString());
