/**
 * What a new password may not be (issue 27, finding 10a; NIST SP 800-63B 5.1.1.2): a value on the
 * shipped list of common and breached passwords (config/words/common-passwords.txt, compared
 * lower-cased), one character repeated, a short pattern repeated ("abcabcabca"), or a simple run
 * of characters up or down ("abcdefghij", "9876543210"). The length rule stays in passwords.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../../config/loader.js";

let common: Set<string> | undefined;

/** The shipped list, read once per process. */
export function commonPasswords(
  file = path.join(projectRoot(), "config", "words", "common-passwords.txt"),
): Set<string> {
  if (common) return common;
  const out = new Set<string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const entry = line.trim();
    if (entry && !entry.startsWith("#")) out.add(entry.toLowerCase());
  }
  return (common = out);
}

/** True when each character is the one before it moved by the same step of 1 (up or down). */
function isRun(chars: string[]): boolean {
  const codes = chars.map((c) => c.codePointAt(0)!);
  const step = codes[1]! - codes[0]!;
  if (step !== 1 && step !== -1) return false;
  return codes.every((c, i) => i === 0 || c - codes[i - 1]! === step);
}

/** The first unit of at most 4 characters the password repeats, or undefined. */
function repeatedUnit(chars: string[]): string | undefined {
  for (let n = 1; n <= 4 && n < chars.length; n++)
    if (chars.every((c, i) => c === chars[i % n])) return chars.slice(0, n).join("");
  return undefined;
}

/** Why this password is too easy to guess, or undefined when it passes. */
export function weakPasswordReason(password: string): string | undefined {
  const lower = password.toLowerCase();
  const chars = [...lower];
  const unit = repeatedUnit(chars);
  if (unit?.length === 1) return `it is one character ("${unit}") repeated`;
  if (unit) return `it is "${unit}" repeated`;
  if (isRun(chars)) return "it is a simple run of characters (like abcdefghij or 9876543210)";
  if (commonPasswords().has(lower)) return "it is on the list of commonly used or breached passwords";
  // "1234567890" with a letter or mark after, and its like: a run with one character added.
  if (chars.length > 10 && (isRun(chars.slice(0, -1)) || isRun(chars.slice(1))))
    return "it is a simple run of characters with one more added";
  return undefined;
}
