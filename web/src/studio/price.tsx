/**
 * The price line before anything that spends credit: an episode (by started minute with a
 * minimum, unless the month's plan episodes cover it) and exports past the ones an episode
 * includes. The prices come from GET /me `prices` (config/pricing.yaml); the length from the
 * episode, or from the chosen file itself, read by the browser before anything is uploaded.
 */
import { useEffect, useState } from "react";
import { call } from "../api";
import { money } from "../ui";

export interface Prices {
  episode_cents_per_minute: number;
  episode_minimum_cents: number;
  exports_included_per_episode: number;
  export_cents_each: number;
}
interface MeForPrices {
  prices?: Prices;
  credit: { credit_cents: number; plan: boolean };
  usage: { plan_episodes_used: number };
  limits: { plan_episodes_per_month: number };
}

let asked: Promise<MeForPrices | null> | null = null;
/** GET /me once per page load (prices do not change while a page is open). */
export function usePrices(): MeForPrices | null {
  const [me, setMe] = useState<MeForPrices | null>(null);
  useEffect(() => {
    asked ??= call<MeForPrices>("GET", "/me").catch(() => ((asked = null), null));
    let live = true;
    void asked.then((m) => live && setMe(m));
    return () => {
      live = false;
    };
  }, []);
  return me;
}

/** What an episode of `seconds` costs: every started minute, never under the minimum. */
export function episodeCents(seconds: number, p: Prices): number {
  return Math.max(p.episode_minimum_cents, Math.ceil(seconds / 60) * p.episode_cents_per_minute);
}

/** The length of a local audio or video file as the browser reads it, or null when it cannot. */
export function probeSeconds(file: Blob): Promise<number | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const el = document.createElement("video");
    const done = (v: number | null) => {
      window.clearTimeout(timer);
      URL.revokeObjectURL(url);
      el.removeAttribute("src");
      resolve(v);
    };
    const timer = window.setTimeout(() => done(null), 5000);
    el.preload = "metadata";
    el.onloadedmetadata = () => done(Number.isFinite(el.duration) && el.duration > 0 ? el.duration : null);
    el.onerror = () => done(null);
    el.src = url;
  });
}

/** "This episode will cost about $X from your credit" (or what the plan covers), for `seconds`. */
export function EpisodePrice({ seconds }: { seconds: number | null }) {
  const me = usePrices();
  if (!me?.prices) return null;
  const p = me.prices;
  const left = me.credit.plan ? Math.max(0, me.limits.plan_episodes_per_month - me.usage.plan_episodes_used) : 0;
  const rate =
    `${money(p.episode_cents_per_minute)} a started minute, at least ${money(p.episode_minimum_cents)}; ` +
    `charged when its clip search starts.`;
  return (
    <p className="price-line">
      {left > 0
        ? `Your plan covers this episode (${left} of this month’s plan episodes left)` +
          (seconds ? `; after those it would cost about ${money(episodeCents(seconds, p))} from your credit.` : ".")
        : seconds
          ? `This episode will cost about ${money(episodeCents(seconds, p))} from your credit ` +
            `(${money(me.credit.credit_cents)} left): ${rate}`
          : `An episode costs ${rate}`}
    </p>
  );
}

/** What cutting or rendering `n` clips spends, beside the exports an episode includes. */
export function ExportPrice({ n }: { n: number }) {
  const me = usePrices();
  if (!me?.prices) return null;
  const p = me.prices;
  return (
    <p className="price-line">
      The first {p.exports_included_per_episode} clips made from an episode (restyles count) are included; each after
      that costs {money(p.export_cents_each)} from your credit
      {n > 0 ? `, so ${n} clip${n === 1 ? "" : "s"} cost at most ${money(n * p.export_cents_each)}` : ""}.
    </p>
  );
}
