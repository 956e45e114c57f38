/** Terminal output for the CLI: a progress bar on a TTY, plain lines otherwise. */
import type { Run } from "../engine/runner.js";
import { etaSeconds } from "../engine/progress.js";

/** `1m05s left`, `40s left`: the current step's own estimate, when it gives one. */
export function etaText(seconds: number | null): string {
  if (seconds === null) return "";
  const s = Math.round(seconds);
  return s >= 60 ? `, ${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s left` : `, ${s}s left`;
}

export function progressPrinter(stream: NodeJS.WriteStream = process.stderr) {
  const tty = Boolean(stream.isTTY);
  let lastLine = "";
  return {
    update(run: Run, label = "") {
      const pct = Math.max(0, Math.min(100, run.progress));
      const stage = run.current_stage ?? run.state;
      const note = run.progress_note ? ` ${run.progress_note}` : "";
      const eta = etaText(etaSeconds(run));
      if (tty) {
        const width = 28;
        const filled = Math.round((pct / 100) * width);
        const bar = "█".repeat(filled) + "░".repeat(width - filled);
        const line = `${label}${bar} ${pct.toFixed(0).padStart(3)}%  ${stage}${note}${eta}`;
        const cols = stream.columns || 100;
        stream.write(`\r\x1b[2K${line.slice(0, cols - 1)}`);
      } else {
        // A log gets a line when the whole percent or the stage changes, not for each new note or
        // estimate: a transcription's note changes every second.
        const key = `${label}${pct.toFixed(0)}% ${stage}`;
        if (key !== lastLine) stream.write(key + note + eta + "\n");
        lastLine = key;
      }
    },
    done() {
      if (tty) stream.write("\n");
    },
  };
}
