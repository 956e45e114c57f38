// Makes sure the OS packages clipd needs are there, for `npm start` (run directly: the service's
// packages, and it always carries on) and `npm test` (imported: the tests' packages too, and it
// stops when they cannot be had). As root on Debian or Ubuntu it installs what is missing with
// apt-get, once, saying so; elsewhere it prints the one command that would. CLIPD_NO_APT=1 turns
// the installing off. What is needed and how it is checked lives in daemon/ops/os-packages.ts, read
// here from its build (both npm scripts build first), so the checks exist once.
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { aptCommand, missingRequirements, onPath, requirementsOf } from "../dist/daemon/ops/os-packages.js";

/**
 * Returns true when nothing is missing (any more).
 * @param {"service" | "tests"} set
 * @param {{ label: string, ignore?: (name: string) => boolean }} opts
 */
export function ensureOsPackages(set, { label, ignore = () => false }) {
  const missing = () => missingRequirements(set).filter((r) => !ignore(r.name));
  const before = missing();
  if (!before.length) return true;
  const names = before.map((r) => r.name).join(", ");
  // The whole set, not only the missing part: apt-get skips what is installed, and one command is
  // easier to copy than a list that depends on the machine.
  const pkgs = requirementsOf(set)
    .filter((r) => !ignore(r.name))
    .map((r) => r.pkg);
  const cmd = aptCommand(pkgs);
  const noApt = !!process.env.CLIPD_NO_APT && process.env.CLIPD_NO_APT !== "0";
  const canInstall = process.getuid?.() === 0 && onPath("apt-get") && !noApt;
  if (canInstall) {
    console.error(`${label}: installing missing OS packages (${names} missing): ${cmd}`);
    try {
      execFileSync("/bin/sh", ["-c", cmd], {
        stdio: "inherit",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
    } catch {
      console.error(`${label}: apt-get failed (see above)`);
    }
    const after = missing();
    if (!after.length) return true;
    console.error(`${label}: still missing after apt-get: ${after.map((r) => r.name).join(", ")}`);
    return false;
  }
  console.error(`${label}: missing ${names}. Install with:\n  sudo sh -c '${cmd}'`);
  return false;
}

// `node scripts/os-packages.mjs`: the prestart check. A machine without the packages still starts
// (the API and /healthz say what is missing; steps that need a tool fail with tool_missing).
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (!ensureOsPackages("service", { label: "clipd" }))
    console.error("clipd: starting anyway; /healthz reports degraded until they are installed");
}
