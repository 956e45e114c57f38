// The preparation moved to daemon/render/caption-prep.ts, where the clip editor's preview shares it.
export * from "../../daemon/render/caption-prep.js";
