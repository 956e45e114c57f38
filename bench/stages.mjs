// Stage plugin used only by the queue benchmark (bench/queue.ts). Plain JavaScript with no
// imports, loaded through the config's `plugins:` list like any ops module.
//
// `bench-noop` does no work: it records when it began and ended, on the high-resolution clock
// (milliseconds since the Unix epoch, sub-millisecond precision), so the benchmark can measure the
// gap between one step's end and the next step's start without the runner's own bookkeeping.
const now = () => performance.timeOrigin + performance.now();

const noop = {
  name: "bench-noop",
  summary: "Benchmark stage: does nothing, records its start and end time",
  options: { type: "object", additionalProperties: false, properties: {} },
  async run(_input, _ctx) {
    const t_start = now();
    return { t_start, t_end: now() };
  },
};

export const stages = [noop];
