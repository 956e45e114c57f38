/**
 * Named crash points for the crash tests. `CLIPD_FAULTS=name[,name…]` makes the process kill
 * itself with SIGKILL when it reaches one of those points, which is the one way to stop a process
 * at an exact moment (between a commit and what follows it) instead of hoping a timed kill lands
 * there. Unset, as in every real deployment, a point costs one Set lookup.
 *
 * The points: after-handler:<operation id> (facade/core/run-operation.ts); watch:renders-started,
 * watch:outbox-partial and watch:outbox-written (daemon/watch/settle.ts and outbox.ts);
 * run-end:<pipeline> (daemon/engine/runner.ts), inside the transaction that ends a run, after its
 * run-end hooks wrote (charge, events, next run) and before it commits; step:<stage>
 * (daemon/engine/runner.ts), once a step is marked running and before its stage starts.
 *
 * `escape:<point>` at the same points makes an error escape the request instead (a throw from a
 * callback and a rejection nobody awaits), the way a broken listener's would: the request guard's
 * test (daemon/ops/request-guard.ts) proves such an error ends the request, not the process.
 */
const FAULTS = new Set(
  (process.env.CLIPD_FAULTS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

export function faultPoint(name: string): void {
  if (FAULTS.has(name)) process.kill(process.pid, "SIGKILL");
}

export function faultEscape(name: string): void {
  if (!FAULTS.has(`escape:${name}`)) return;
  setImmediate(() => {
    throw new Error(`fault ${name}: an error escaped its request`);
  });
  void Promise.reject(new Error(`fault ${name}: a rejection nobody awaited`));
}
