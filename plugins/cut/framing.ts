/**
 * The framing of one clip for cut and plan-crops: the camera plan (reframe.ts) with its saliency
 * scenes, or, when the face analysis cannot run here (its child fails to start, a model cannot
 * load), the saliency scenes alone, as before issue 37, with a warning in the log.
 */
import type { StageContext } from "../../daemon/engine/stage.js";
import type { LayoutChoice } from "../../daemon/render/camera.js";
import type { Piece } from "./clip.js";
import { cropPlan } from "./focus.js";
import { type Reframed, reframe } from "./reframe.js";

export async function planFraming(
  source: string,
  pieces: Piece[],
  ctx: Pick<StageContext<unknown>, "signal" | "log">,
  o: { threshold: number; aspect: number; layout: LayoutChoice },
): Promise<Pick<Reframed, "scenes" | "camera">> {
  try {
    return await reframe(source, pieces, { signal: ctx.signal, ...o });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log.warn({ err }, "reframe: the face analysis failed; the saliency crop frames this clip");
    return { scenes: await cropPlan(source, pieces, { signal: ctx.signal, threshold: o.threshold, aspect: o.aspect }) };
  }
}
