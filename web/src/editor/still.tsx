/**
 * The still behind an audio clip's preview, as plugins/cut/background.ts draws it for the render:
 * cover art over a blurred, darkened fill of itself (or a gradient of the background colour with
 * the initial's tile), the show's name and the title, and the waveform's bars in the band the
 * audio template leaves for them. Laid out by the server (audioLayout), in the frame's pixels.
 */
import type { ReactNode } from "react";
import type { Box, PreviewFrame } from "./frame";

/** A colour made lighter (factor above 1) or darker, as the cut's still shades its fill. */
function shade(hex: string, factor: number): string {
  const n = /^#([0-9a-f]{6})$/i.test(hex) ? parseInt(hex.slice(1), 16) : 0x1f2937;
  const ch = [16, 8, 0].map((s) => Math.max(0, Math.min(255, Math.round(((n >> s) & 255) * factor))));
  return `#${ch.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** The still behind an audio clip, as plugins/cut/background.ts draws it. */
function AudioStill({
  a,
  W,
  H,
  fill,
  title,
}: {
  a: NonNullable<PreviewFrame["audio"]>;
  W: number;
  H: number;
  fill: string;
  title: string;
}) {
  const L = a.layout;
  const text = a.colours?.text ?? "#ffffff";
  const accent = a.colours?.accent ?? "#d1d5db";
  const base = a.colours?.background ?? fill;
  const x = L.text.align === "middle" ? W / 2 : L.text.x;
  let y = L.text.y + L.showSize;
  const parts: ReactNode[] = [];
  if (a.show_name) {
    parts.push(
      <text
        key="show"
        x={x}
        y={y}
        textAnchor={L.text.align}
        fontSize={L.showSize}
        fill={accent}
        fontWeight="bold"
        letterSpacing={Math.round(L.showSize * 0.08)}
      >
        {a.show_name}
      </text>,
    );
    y += Math.round(L.showSize * 0.5);
  }
  a.title_lines.forEach((line, i) =>
    parts.push(
      <text
        key={`t${i}`}
        x={x}
        y={y + Math.round(L.titleSize * (1.15 + i * 1.25))}
        textAnchor={L.text.align}
        fontSize={L.titleSize}
        fill={text}
        fontWeight="bold"
      >
        {line}
      </text>,
    ),
  );
  const c = L.cover;
  const initial = (a.show_name ?? title).trim().charAt(0).toUpperCase();
  return (
    <g className="ed-still" fontFamily="DejaVu Sans, sans-serif">
      <defs>
        <linearGradient id="ed-fill" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor={shade(base, 1.25)} />
          <stop offset="1" stopColor={shade(base, 0.45)} />
        </linearGradient>
        <filter id="ed-still-blur">
          <feGaussianBlur stdDeviation={Math.max(8, Math.round(W / 60))} />
          <feComponentTransfer>
            <feFuncR type="linear" slope="0.35" />
            <feFuncG type="linear" slope="0.35" />
            <feFuncB type="linear" slope="0.35" />
          </feComponentTransfer>
        </filter>
      </defs>
      {a.cover_url ? (
        <>
          <image
            href={a.cover_url}
            width={W}
            height={H}
            preserveAspectRatio="xMidYMid slice"
            filter="url(#ed-still-blur)"
          />
          <image href={a.cover_url} x={c.x} y={c.y} width={c.w} height={c.h} preserveAspectRatio="xMidYMid slice" />
        </>
      ) : (
        <>
          <rect width={W} height={H} fill="url(#ed-fill)" />
          <rect
            x={c.x}
            y={c.y}
            width={c.w}
            height={c.h}
            rx={Math.round(c.w * 0.06)}
            fill={shade(base, 0.6)}
            stroke={accent}
            strokeOpacity={0.5}
            strokeWidth={Math.max(2, Math.round(c.w * 0.01))}
          />
          {initial && (
            <text
              x={c.x + c.w / 2}
              y={c.y + c.h * 0.68}
              textAnchor="middle"
              fontWeight="bold"
              fontSize={Math.round(c.h * 0.5)}
              fill={accent}
            >
              {initial}
            </text>
          )}
        </>
      )}
      {parts}
    </g>
  );
}

/** The waveform's mirrored bars in their band: `levels` (0–1 each) while the sound plays, low bars at rest. */
function Wave({ box, levels, colour }: { box: Box; levels: number[]; colour: string }) {
  const n = levels.length;
  const w = box.w / n;
  const mid = box.y + box.h / 2;
  return (
    <g className="ed-wave-bars" fill={colour}>
      {levels.map((v, i) => {
        const h = Math.max(2, (box.h / 2) * Math.min(1, v));
        return <rect key={i} x={box.x + i * w + w * 0.15} y={mid - h} width={w * 0.7} height={h * 2} />;
      })}
    </g>
  );
}

export function StillLayer(p: {
  frame: PreviewFrame;
  W: number;
  H: number;
  fill: string;
  title: string;
  levels: number[];
}) {
  const a = p.frame.audio;
  if (!a) return null;
  return (
    <svg className="ed-layer" viewBox={`0 0 ${p.W} ${p.H}`} aria-hidden="true" data-layer="still">
      <AudioStill a={a} W={p.W} H={p.H} fill={p.fill} title={p.title} />
      <Wave box={a.layout.wave} levels={p.levels} colour={a.colours?.accent ?? "#ffffff"} />
    </svg>
  );
}
