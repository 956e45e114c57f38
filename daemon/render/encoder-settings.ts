/**
 * The values of `render.encoder`, apart from encoder.ts so that the config schema can name them
 * without importing the tool runner (which reads the config: an import cycle).
 */
export const ENCODER_SETTINGS = ["auto", "libx264", "h264_nvenc", "h264_qsv", "h264_vaapi"] as const;
export type EncoderSetting = (typeof ENCODER_SETTINGS)[number];
export type VideoEncoder = Exclude<EncoderSetting, "auto">;
