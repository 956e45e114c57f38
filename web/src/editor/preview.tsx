/**
 * The live preview: the episode's stored source in a frame of the chosen shape (the crop done by
 * CSS: `object-fit: cover` at the cut's crop centre, or the whole picture on the background), with
 * the captions drawn over it by libass compiled to WebAssembly (JASSUB), from the very ASS the
 * render would burn (POST /clips/{id}/captions/preview). JASSUB is imported only here, so only the
 * editor's visitors load it. Playback walks the draft's pieces, skipping the pauses they cut, and
 * runs on the render's clock: a brand kit's intro card first, its outro card last (frame.tsx draws
 * them, with the logo and an audio clip's still). Each JASSUB gets a canvas of its own (keyed by its
 * fonts): a canvas hands its drawing to a worker once, so a new renderer on the old one would fail.
 */
import { useEffect, useRef, useState } from "react";
import type JASSUB from "jassub";
import type { Piece } from "../types";
import { clock } from "../studio/timeline";
import { BrandLayer, type PreviewFrame } from "./frame";
import { StillLayer } from "./still";
import { cameraFocus, clipTime, type EditorCamera, sourceTime, splitWindows } from "./model";
import { useBlurFill, useCardClock, useLevels } from "./preview-media";

export interface PreviewAss {
  ass: string;
  width: number;
  height: number;
  duration: number;
  /** The pieces the render would join (the draft's, snapped to word edges by the server). */
  timeline?: Piece[];
  fonts: Array<{ family: string; url: string }>;
  /** What the render adds around the captions: the brand's logo and cards, an audio clip's still. */
  frame?: PreviewFrame;
}

interface Props {
  src: string;
  title: string;
  preview: PreviewAss;
  pieces: Piece[];
  fit: string;
  background: string;
  focus: { x: number; y: number } | null;
  camera?: EditorCamera | null;
  onTime(sourceSeconds: number): void;
  /** A place the timeline asked for (source seconds), with a counter so the same place can be asked twice. */
  seek: { t: number; n: number } | null;
}

const BACKGROUNDS: Record<string, string> = {
  black: "#000",
  white: "#fff",
  gray: "#808080",
  navy: "#1b2a4a",
  dark: "linear-gradient(#1d1f27, #0b0c10)",
  blur: "#16181d",
};
const NO_FRAME: PreviewFrame = { before: 0, after: 0 };

export function Preview({ src, title, preview, pieces, fit, background, focus, camera, onTime, seek }: Props) {
  const video = useRef<HTMLVideoElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const halves = useRef<HTMLCanvasElement>(null);
  const lib = useRef<JASSUB | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const [at, setAt] = useState(0);
  const frame = preview.frame ?? NO_FRAME;
  // Where the render's clock is: on the intro card, in the clip, or on the outro card (with the card's seconds).
  const [card, setCard] = useCardClock(frame, () => {
    const v = video.current!;
    v.currentTime = pieces[0]!.start;
    void v.play();
  });
  const [logoRatio, setLogoRatio] = useState(1);
  const fontKey = preview.fonts.map((f) => f.url).join();
  const levels = useLevels(video, !!frame.audio);
  const blur = useBlurFill(video, fit === "whole" && background === "blur" && !frame.audio);

  // One renderer per set of fonts, on its own canvas; the track is swapped below without starting it again.
  useEffect(() => {
    let gone = false;
    let made: JASSUB | null = null;
    setFailed(null);
    import("jassub")
      .then(async ({ default: Jassub }) => {
        if (gone || !canvas.current) return;
        made = new Jassub({
          canvas: canvas.current,
          subContent: preview.ass,
          fonts: preview.fonts.map((f) => f.url),
          availableFonts: Object.fromEntries(preview.fonts.map((f) => [f.family.toLowerCase(), f.url])),
          defaultFont: preview.fonts[0]?.family.toLowerCase(),
          queryFonts: false,
        });
        await made.ready;
        if (gone) return void made.destroy();
        lib.current = made;
        setReady(true);
      })
      .catch((e: unknown) => setFailed(e instanceof Error ? e.message : String(e)));
    return () => {
      gone = true;
      lib.current = null;
      setReady(false);
      void made?.destroy();
    };
    // Hook dependencies on purpose: the track follows below; only new fonts restart it
  }, [fontKey]);

  // The split layout's two windows, drawn from the player's frame as the render stacks them; the
  // windows drawn are kept on the canvas (data-windows) for whoever checks them against the render.
  const split = fit !== "whole" && camera?.layout === "split";
  const paintSplit = (t: number) => {
    const v = video.current;
    const c = halves.current;
    const wins = camera && split ? splitWindows(camera, t, preview.width, preview.height) : null;
    const g = c?.getContext("2d");
    if (!v || !c || !g || !wins || !v.videoWidth) return;
    for (const { src, dst } of wins)
      g.drawImage(
        v,
        src.x * v.videoWidth,
        src.y * v.videoHeight,
        src.w * v.videoWidth,
        src.h * v.videoHeight,
        dst.x,
        dst.y,
        dst.w,
        dst.h,
      );
    c.dataset.windows = JSON.stringify(wins.map((w) => w.src));
    c.dataset.clipTime = t.toFixed(3);
  };

  // Draws the captions at the player's place on the clip's timeline.
  const draw = async () => {
    const v = video.current;
    const r = lib.current;
    // The split windows are the picture itself: drawn even while the captions' renderer is loading.
    if (v) paintSplit(clipTime(pieces, v.currentTime) ?? 0);
    if (!v || !r || !canvas.current) return;
    const t = clipTime(pieces, v.currentTime) ?? 0;
    await r.manualRender(
      { expectedDisplayTime: performance.now(), width: preview.width, height: preview.height, mediaTime: t },
      true,
    );
    if (!canvas.current) return;
    canvas.current.dataset.clipTime = t.toFixed(3);
    setAt(t);
  };

  useEffect(() => {
    const r = lib.current;
    if (!ready || !r) return;
    canvas.current?.removeAttribute("data-clip-time");
    void (async () => {
      await r.renderer.setTrack(preview.ass);
      await draw();
    })();
    // Hook dependencies on purpose: redrawn for a new track, a new shape or new pieces
  }, [ready, preview.ass, preview.width, preview.height, pieces]);

  // Playing walks the pieces: past a piece's end, on to the next piece's start; past the last, the
  // outro card when the kit has one, else stop.
  useEffect(() => {
    const v = video.current;
    if (!v) return;
    let frameId = 0;
    const tick = () => {
      const t = v.currentTime;
      onTime(t);
      blur.paint();
      const inside = clipTime(pieces, t);
      if (inside === null) {
        const next = pieces.find((p) => p.start > t);
        if (next) v.currentTime = next.start;
        else if (!v.paused) {
          v.pause();
          if (frame.after > 0) setCard({ name: "outro", t: 0, playing: true });
        }
      }
      void draw();
      if (!v.paused) frameId = requestAnimationFrame(tick);
    };
    const start = () => {
      if (clipTime(pieces, v.currentTime) === null) v.currentTime = pieces[0]!.start;
      setCard(null);
      frameId = requestAnimationFrame(tick);
    };
    v.addEventListener("play", start);
    v.addEventListener("seeked", tick);
    v.addEventListener("loadeddata", tick);
    if (v.readyState >= 2 && clipTime(pieces, v.currentTime) === null) v.currentTime = pieces[0]!.start;
    return () => {
      cancelAnimationFrame(frameId);
      v.removeEventListener("play", start);
      v.removeEventListener("seeked", tick);
      v.removeEventListener("loadeddata", tick);
    };
    // Hook dependencies on purpose: draw reads the latest refs
  }, [pieces, onTime, frame.after]);

  useEffect(() => {
    if (seek && video.current) {
      setCard(null);
      video.current.currentTime = seek.t;
    }
  }, [seek]);

  const total = frame.before + preview.duration + frame.after;
  const cards = [frame.intro && "intro", frame.outro && "outro"].filter(Boolean).join(" and ");
  const clockAt =
    card?.name === "intro"
      ? card.t
      : card?.name === "outro"
        ? frame.before + preview.duration + card.t
        : frame.before + at;
  // The planned camera, where there is one, moves the window as the render will (at: the clip time drawn).
  const aim = (camera && cameraFocus(camera, at, preview.width / preview.height)) || focus;
  const pos = aim ? `${(aim.x * 100).toFixed(1)}% ${(aim.y * 100).toFixed(1)}%` : "50% 50%";
  const playOrPause = () => {
    const v = video.current!;
    if (card) return setCard(card.playing ? { ...card, playing: false } : { ...card, playing: true });
    if (!v.paused) return v.pause();
    // From the clip's first frame, the render starts on the intro card.
    if (frame.before > 0 && (clipTime(pieces, v.currentTime) ?? 0) < 0.05)
      return setCard({ name: "intro", t: 0, playing: true });
    void v.play();
  };
  return (
    <figure className="ed-preview">
      <div
        className="ed-frame"
        data-shape={`${preview.width}x${preview.height}`}
        data-phase={card?.name ?? "clip"}
        data-total={total.toFixed(3)}
        style={{
          aspectRatio: `${preview.width} / ${preview.height}`,
          // As wide as the column allows, and never taller than 480 pixels (on a phone, half the screen: editor.css).
          ["--ed-ratio" as string]: (preview.width / preview.height).toFixed(4),
          background: BACKGROUNDS[background] ?? "#000",
        }}
      >
        {blur.on && <canvas ref={blur.ref} className="ed-blur" width={108} height={192} aria-hidden="true" />}
        <video
          ref={video}
          src={src}
          preload="auto"
          playsInline
          aria-label={`Preview of ${title}`}
          style={{ objectFit: fit === "whole" ? "contain" : "cover", objectPosition: pos, opacity: split ? 0 : 1 }}
          onLoadedMetadata={(e) => {
            if (clipTime(pieces, e.currentTarget.currentTime) === null) e.currentTarget.currentTime = pieces[0]!.start;
          }}
        />
        {split && (
          <canvas
            ref={halves}
            className="ed-split"
            role="img"
            width={preview.width}
            height={preview.height}
            aria-label="Split screen: one window per person"
          />
        )}
        <StillLayer
          frame={frame}
          W={preview.width}
          H={preview.height}
          fill={BACKGROUNDS[background] ?? "#1f2937"}
          title={title}
          levels={levels}
        />
        <canvas
          key={fontKey}
          ref={canvas}
          className="ed-captions"
          width={preview.width}
          height={preview.height}
          aria-hidden="true"
        />
        {frame.logo && (
          // Read once for the logo's height: the render scales it to a width and keeps its shape.
          <img
            hidden
            alt=""
            src={frame.logo.url}
            onLoad={(e) => setLogoRatio(e.currentTarget.naturalHeight / Math.max(1, e.currentTarget.naturalWidth))}
          />
        )}
        <BrandLayer
          frame={frame}
          W={preview.width}
          H={preview.height}
          card={card?.name ?? null}
          logoRatio={logoRatio}
        />
      </div>
      <figcaption>
        <button type="button" className="small" onClick={playOrPause}>
          Play or pause
        </button>{" "}
        <button
          type="button"
          className="small"
          onClick={() => {
            video.current!.pause();
            video.current!.currentTime = sourceTime(pieces, 0);
            setCard(frame.before > 0 ? { name: "intro", t: 0, playing: false } : null);
          }}
        >
          From the start
        </button>{" "}
        <span className="hint ed-clock">
          {clock(clockAt)} of {clock(total)}
          {cards ? ` (with the brand's ${cards} card)` : ""}
          {failed ? ` · Captions could not be drawn here: ${failed}` : ""}
        </span>
      </figcaption>
    </figure>
  );
}
