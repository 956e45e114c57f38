/**
 * What the render adds around the captions, drawn over the preview in the frame's own pixels (an
 * SVG with the render's viewBox, so it scales with the frame): an audio clip's still (cover art
 * over a blurred fill of itself, the show's name, the title, the waveform's bars), the brand kit's
 * logo in its corner, and the intro or outro card while the preview's clock is on one. The numbers
 * come from the server (daemon/studio/editor-frame.ts), which reads the render's own layout.
 */
import type { ReactNode } from "react";

export interface FrameCard {
  seconds: number;
  lines: string[];
  size: number;
  background: string;
  colour: string;
}
interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
export interface PreviewFrame {
  before: number;
  after: number;
  logo?: { url: string; corner: string; size: number; opacity: number };
  intro?: FrameCard;
  outro?: FrameCard;
  audio?: {
    layout: {
      cover: Box;
      text: Box & { align: "middle" | "start" };
      showSize: number;
      titleSize: number;
      wave: Box;
    };
    title_lines: string[];
    show_name?: string;
    cover_url: string | null;
    colours?: { background: string; text: string; accent: string };
  };
}

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

function Card({ card, W, H, name }: { card: FrameCard; W: number; H: number; name: string }) {
  const lh = Math.round(card.size * 1.3);
  const top = Math.round((H - lh * card.lines.length) / 2);
  return (
    <g className="ed-card" aria-label={name}>
      <rect width={W} height={H} fill={card.background} />
      {card.lines.map((l, i) => (
        <text
          key={i}
          x={W / 2}
          y={top + i * lh + card.size}
          textAnchor="middle"
          fontSize={card.size}
          fill={card.colour}
          fontWeight="bold"
          fontFamily="DejaVu Sans, sans-serif"
        >
          {l}
        </text>
      ))}
    </g>
  );
}

/** The logo where brand-graph.ts puts it: a fraction of the width, a margin of 4% of the short side. */
function Logo({ logo, W, H, ratio }: { logo: NonNullable<PreviewFrame["logo"]>; W: number; H: number; ratio: number }) {
  const lw = W * Math.min(0.5, Math.max(0.03, logo.size || 0.15));
  const lh = lw * ratio;
  const m = Math.round(Math.min(W, H) * 0.04);
  const x = logo.corner.endsWith("left") ? m : W - lw - m;
  const y = logo.corner.startsWith("top") ? m : H - lh - m;
  return (
    <image
      className="ed-logo"
      href={logo.url}
      x={x}
      y={y}
      width={lw}
      height={lh}
      opacity={Math.min(1, Math.max(0.05, logo.opacity || 1))}
      preserveAspectRatio="xMidYMid meet"
    />
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

export function BrandLayer(p: {
  frame: PreviewFrame;
  W: number;
  H: number;
  card: "intro" | "outro" | null;
  logoRatio: number;
}) {
  const card = p.card ? p.frame[p.card] : undefined;
  if (!card && !p.frame.logo) return null;
  return (
    <svg
      className="ed-layer"
      viewBox={`0 0 ${p.W} ${p.H}`}
      data-layer="brand"
      data-card={p.card ?? ""}
      role={card ? "img" : undefined}
      aria-label={card ? `${p.card === "intro" ? "Intro" : "Outro"} card: ${card.lines.join(" ")}` : undefined}
      aria-hidden={card ? undefined : true}
    >
      {card ? (
        <Card card={card} W={p.W} H={p.H} name={p.card!} />
      ) : (
        p.frame.logo && <Logo logo={p.frame.logo} W={p.W} H={p.H} ratio={p.logoRatio} />
      )}
    </svg>
  );
}
