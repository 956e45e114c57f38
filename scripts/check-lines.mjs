// The one layout rule Biome cannot enforce: no source line over 120 characters. Biome's formatter
// keeps code inside the width but never splits a string or a comment, so this check reads what is
// left. SQL is exempt: a statement inside a template literal keeps its clauses whole and greppable.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const LIMIT = 120;
const SQL = /\b(select|insert\s+into|update|delete\s+from|create\s+(table|index)|alter\s+table)\b/i;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const files = execFileSync("git", ["ls-files", "*.ts", "*.tsx", "*.mjs", "*.js", "*.cjs"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => f && !f.startsWith("test/fixtures/"));

/** Start and end offsets of every template literal whose text reads as SQL. */
function sqlSpans(file, text) {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : file.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const spans = [];
  const visit = (n) => {
    if (ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n)) {
      const s = n.getStart(sf);
      if (SQL.test(text.slice(s, n.end))) spans.push([s, n.end]);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return spans;
}

const long = [];
for (const file of files) {
  const text = readFileSync(path.join(root, file), "utf8");
  if (!text.split("\n").some((l) => l.length > LIMIT)) continue;
  const spans = sqlSpans(file, text);
  let at = 0;
  text.split("\n").forEach((line, i) => {
    // A line that overlaps a SQL literal is exempt, its first line (where the backtick sits after code) included.
    const inSql = spans.some(([s, e]) => at <= e && at + line.length >= s);
    if (line.length > LIMIT && !inSql) long.push(`${file}:${i + 1}: ${line.length} characters`);
    at += line.length + 1;
  });
}
if (long.length) {
  console.error(`Lines over ${LIMIT} characters (split the string or comment; SQL is exempt):\n${long.join("\n")}`);
  process.exit(1);
}
console.error(`check-lines: ${files.length} files, no line over ${LIMIT} characters`);
