/** Terminal output for the CLI: a progress bar on a TTY, plain lines otherwise. */
import type { Run } from "../engine/runner.js";

export function progressPrinter(stream: NodeJS.WriteStream = process.stderr) {
  const tty = Boolean(stream.isTTY);
  let lastLine = "";
  return {
    update(run: Run, label = "") {
      const pct = Math.max(0, Math.min(100, run.progress));
      const stage = run.current_stage ?? run.state;
      const note = run.progress_note ? ` ${run.progress_note}` : "";
      if (tty) {
        const width = 28;
        const filled = Math.round((pct / 100) * width);
        const bar = "█".repeat(filled) + "░".repeat(width - filled);
        const line = `${label}${bar} ${pct.toFixed(0).padStart(3)}%  ${stage}${note}`;
        const cols = stream.columns || 100;
        stream.write(`\r\x1b[2K${line.slice(0, cols - 1)}`);
      } else {
        const line = `${label}${pct.toFixed(0)}% ${stage}${note}`;
        if (line !== lastLine) stream.write(line + "\n");
        lastLine = line;
      }
    },
    done() {
      if (tty) stream.write("\n");
    },
  };
}
