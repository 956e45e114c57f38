/**
 * The preview's two moving fills, read from its player: the waveform of an audio clip (the sound's
 * speech band, up to 4 kHz, in 40 bars, as the render's showfreqs draws it) and the blurred
 * picture behind a video fitted whole on the "blur" background (the render blurs the clip itself
 * there; a flat colour would not show what the render makes). Also the clock of the brand's cards.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import type { PreviewFrame } from "./frame";

const BARS = 40;
const REST = Array.from({ length: BARS }, (_, i) => 0.06 + 0.04 * Math.abs(Math.sin(i * 1.7)));
// A media element can feed one audio graph in its life: kept per element, made on its first play.
const graphs = new WeakMap<HTMLMediaElement, AnalyserNode>();

function analyserOf(v: HTMLMediaElement): AnalyserNode | null {
  const had = graphs.get(v);
  if (had) return had;
  try {
    const ctx = new AudioContext();
    const node = ctx.createAnalyser();
    node.fftSize = 1024;
    node.smoothingTimeConstant = 0.6;
    ctx.createMediaElementSource(v).connect(node);
    node.connect(ctx.destination);
    void ctx.resume();
    graphs.set(v, node);
    return node;
  } catch {
    return null;
  }
}

/** The waveform's bar levels (0–1), moving while `video` plays when `on`; low resting bars otherwise. */
export function useLevels(video: RefObject<HTMLVideoElement | null>, on: boolean): number[] {
  const [levels, setLevels] = useState(REST);
  useEffect(() => {
    const v = video.current;
    if (!on || !v) return;
    let id = 0;
    const run = () => {
      const node = analyserOf(v);
      if (!node) return;
      const bins = new Uint8Array(node.frequencyBinCount);
      const top = Math.max(BARS, Math.floor((4000 / (node.context.sampleRate / 2)) * bins.length));
      const per = top / BARS;
      const step = () => {
        node.getByteFrequencyData(bins);
        setLevels(
          REST.map((rest, i) => {
            let sum = 0;
            for (let k = Math.floor(i * per); k < Math.floor((i + 1) * per); k++) sum += bins[k] ?? 0;
            return Math.max(rest, Math.cbrt(sum / Math.max(1, Math.floor(per)) / 255));
          }),
        );
        if (!v.paused) id = requestAnimationFrame(step);
      };
      id = requestAnimationFrame(step);
    };
    const rest = () => setLevels(REST);
    v.addEventListener("play", run);
    v.addEventListener("pause", rest);
    return () => {
      cancelAnimationFrame(id);
      v.removeEventListener("play", run);
      v.removeEventListener("pause", rest);
    };
  }, [video, on]);
  return levels;
}

/** A small canvas behind the player holding its frame blurred; `paint` redraws it (called on every tick). */
export function useBlurFill(video: RefObject<HTMLVideoElement | null>, on: boolean) {
  const ref = useRef<HTMLCanvasElement>(null);
  const paint = useCallback(() => {
    const v = video.current;
    const c = ref.current;
    if (!on || !v || !c || v.readyState < 2 || !v.videoWidth) return;
    const g = c.getContext("2d");
    if (!g) return;
    // Cover the canvas with the frame, as the render scales the clip up to fill before blurring it.
    const scale = Math.max(c.width / v.videoWidth, c.height / v.videoHeight);
    const w = v.videoWidth * scale;
    const h = v.videoHeight * scale;
    g.filter = "blur(6px) brightness(0.8)";
    g.drawImage(v, (c.width - w) / 2, (c.height - h) / 2, w, h);
  }, [video, on]);
  useEffect(() => {
    const v = video.current;
    if (!on || !v) return;
    v.addEventListener("loadeddata", paint);
    v.addEventListener("seeked", paint);
    paint();
    return () => {
      v.removeEventListener("loadeddata", paint);
      v.removeEventListener("seeked", paint);
    };
  }, [video, on, paint]);
  return { on, ref, paint };
}

export type CardState = { name: "intro" | "outro"; t: number; playing: boolean } | null;

/**
 * The brand's cards on the render's clock: a playing card runs for its seconds on the page's clock
 * (the video waits), then the intro hands over to the clip (`toClip`) and the outro stops on its
 * last moment.
 */
export function useCardClock(frame: PreviewFrame, toClip: () => void) {
  const [card, setCard] = useState<CardState>(null);
  const playing = card?.playing ? card.name : null;
  const handOver = useRef(toClip);
  handOver.current = toClip;
  useEffect(() => {
    if (!playing) return;
    const seconds = frame[playing]?.seconds ?? 0;
    const began = performance.now() - (card?.t ?? 0) * 1000;
    let id = requestAnimationFrame(function step() {
      const t = (performance.now() - began) / 1000;
      if (t < seconds) {
        setCard({ name: playing, t, playing: true });
        id = requestAnimationFrame(step);
      } else if (playing === "intro") {
        setCard(null);
        handOver.current();
      } else setCard({ name: "outro", t: seconds, playing: false });
    });
    return () => cancelAnimationFrame(id);
    // Hook dependencies on purpose: restarted only when a card starts playing
  }, [playing]);
  return [card, setCard] as const;
}
