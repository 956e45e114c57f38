/**
 * What the render adds around the captions, drawn over the preview in the frame's own pixels (an
 * SVG with the render's viewBox, so it scales with the frame): the brand kit's logo in its corner,
 * and the intro or outro card while the preview's clock is on one; an audio clip's still is in
 * still.tsx. The numbers come from the server (daemon/studio/editor-frame.ts), which reads the
 * render's own layout.
 */

export interface FrameCard {
  seconds: number;
  lines: string[];
  size: number;
  background: string;
  colour: string;
}
export interface Box {
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
