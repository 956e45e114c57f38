// The real pocketsphinx behind a gate: a wrapper (config `pocketsphinx.command`) that waits until
// the test opens the gate, then runs the real decoder. A test can then look at a run while it is
// surely in the transcribe step, waiting on state rather than on the clock.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { POCKETSPHINX_COMMAND } from "../../daemon/ops/os-packages.js";

export interface GatedPocketsphinx {
  /** The wrapper to set as `pocketsphinx.command`. */
  command: string;
  /** Lets every waiting and later decoder run. */
  open(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function gatedPocketsphinx(): Promise<GatedPocketsphinx> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "clipd-gate-"));
  const gate = path.join(dir, "open");
  const command = path.join(dir, "pocketsphinx-gated");
  // The wrapper polls for the gate file; it is the wrapper that waits, not the test.
  await writeFile(
    command,
    `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.1; done\nexec ${POCKETSPHINX_COMMAND} "$@"\n`,
  );
  await chmod(command, 0o755);
  return {
    command,
    open: () => writeFile(gate, "open\n"),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
