/**
 * Who is talking (issue 37), from what the clip itself holds:
 * - the voice activity: the level of the sound in tenths of a second (voice.ts);
 * - mouth movement: while the voice is active, the speaker's lower face moves and the listener's
 *   does not, so how much each face's mouth opening changes from sample to sample tells them apart;
 * - stereo channels: a recording with one voice a channel tells left from right by itself.
 * When none of them is sure, the answer is null, and the camera (camera-plan.ts) frames everyone
 * who fits or holds the last speaker: it never guesses.
 */
import type { Person } from "./people.js";
import { type Voice, voiceActive, dominantChannel } from "./voice.js";

/** Half the window over which a mouth's movement is measured. */
const HALF_WINDOW = 1.2;
/** A speaker's mouth spread must be this many times the next face's, and at least MOUTH_MIN. */
const MOUTH_LEAD = 1.5;
const MOUTH_MIN = 0.01;
/** Turns shorter than this are folded into their neighbour (a nod is not a turn). */
export const MIN_TURN = 0.8;

export interface Turn {
  start: number;
  end: number;
  person: number | null;
}

/** Mean change between consecutive openings: a talking mouth moves often, a landmark's one jump barely counts. */
const movement = (v: number[]) => v.slice(1).reduce((a, b, i) => a + Math.abs(b - v[i]!), 0) / (v.length - 1);

/** The speaker at `t` among the people on screen in [from, to), or null when it cannot tell. */
export function speakerAt(
  people: Person[],
  voice: Voice | undefined,
  t: number,
  scene: { start: number; end: number },
): number | null {
  if (voice && !voiceActive(voice, t)) return null;
  const lo = Math.max(scene.start, t - HALF_WINDOW);
  const hi = Math.min(scene.end, t + HALF_WINDOW);
  const scores = people
    .map((p) => {
      const v = p.sightings.filter((s) => s.t >= lo && s.t < hi && (!voice || voiceActive(voice, s.t)));
      // Only the frames whose landmarks were measured (face-schedule.ts asks while voiced, two on screen).
      const mouths = v.flatMap((s) => (s.mouth === undefined ? [] : [s.mouth]));
      return {
        id: p.id,
        x: p.sightings.find((s) => s.t >= scene.start)?.x ?? 0.5,
        n: v.length,
        s: mouths.length >= 3 ? movement(mouths) : 0,
      };
    })
    .filter((p) => p.n > 0)
    .sort((a, b) => b.s - a.s);
  if (scores.length === 1) return scores[0]!.id;
  if (scores.length === 0) return null;
  const [first, second] = [scores[0]!, scores[1]!];
  if (first.s >= MOUTH_MIN && first.s >= MOUTH_LEAD * second.s) return first.id;
  // The mouths do not say; a recording with one voice a channel may (left channel, left person).
  const side = voice ? dominantChannel(voice, t) : undefined;
  if (side) {
    const byX = [...scores].sort((a, b) => a.x - b.x);
    return (side === "left" ? byX[0] : byX[byX.length - 1])!.id;
  }
  return null;
}

/** A scene's turns: the speaker at each sample time, short flickers folded into their neighbour. */
export function sceneTurns(
  people: Person[],
  voice: Voice | undefined,
  scene: { start: number; end: number },
  times: number[],
): Turn[] {
  const here = people.filter((p) => p.sightings.some((s) => s.t >= scene.start && s.t < scene.end));
  const marks = times
    .filter((t) => t >= scene.start && t < scene.end)
    .map((t) => ({ t, who: speakerAt(here, voice, t, scene) }));
  const turns: Turn[] = [];
  for (const [i, m] of marks.entries()) {
    const start = i === 0 ? scene.start : (marks[i - 1]!.t + m.t) / 2;
    const last = turns.at(-1);
    if (last && last.person === m.who) continue;
    if (last) last.end = start;
    turns.push({ start, end: scene.end, person: m.who });
  }
  if (!turns.length) return [{ start: scene.start, end: scene.end, person: null }];
  // Fold short turns into the one before (or after, for the first), then join equal neighbours.
  const out: Turn[] = [];
  for (const t of turns) {
    const last = out.at(-1);
    if (last && (t.end - t.start < MIN_TURN || t.person === last.person)) last.end = t.end;
    else if (last && last.end - last.start < MIN_TURN && out.length === 1) out[0] = { ...t, start: last.start };
    else out.push({ ...t });
  }
  return out;
}
