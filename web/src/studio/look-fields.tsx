/**
 * The fields of a clip's look, shared by the cut panel and Restyle: a gallery of caption styles
 * (each a still of this episode with the style's captions, GET /episodes/{id}/styles/{style}/
 * preview.png, lazy), caption size and position, hook title (the clip's title, off, or your own
 * words), shape (aspect ratio), fit, background and clean captions (profanity, emphasis, emoji). With `keep`, every
 * field also offers "Keep", and only what is
 * changed is sent (a restyle changes what its body names).
 */
import { useId, useState } from "react";
import type { CaptionStyle, ClipLook } from "../types";
import {
  ASPECTS,
  BACKGROUNDS,
  CENSORS,
  EMOJIS,
  EMPHASES,
  FITS,
  hookValue,
  LAYOUTS,
  onOff,
  POSITIONS,
  SIZES,
} from "./look";

export interface LookForm {
  style: string;
  caption_size: string;
  caption_position: string;
  /** "" keep, "title", "off" or "words". */
  hook: string;
  words: string;
  fit: string;
  background: string;
  aspect_ratio: string;
  /** "" keep, or how the camera frames people: "auto", "follow", "split", "whole". */
  layout: string;
  /** "" keep, "off", "mask" or "bleep". */
  censor: string;
  /** "" keep, "on" or "off". */
  emphasis: string;
  emoji: string;
}

export const KEEP_ALL: LookForm = {
  style: "",
  caption_size: "",
  caption_position: "",
  hook: "",
  words: "",
  fit: "",
  background: "",
  aspect_ratio: "",
  layout: "",
  censor: "",
  emphasis: "",
  emoji: "",
};

export function formOf(look: ClipLook): LookForm {
  const h = look.hook_title;
  const clean = { censor: look.censor ?? "off", emphasis: onOff(look.emphasis, true), emoji: onOff(look.emoji, false) };
  return {
    ...look,
    ...clean,
    aspect_ratio: look.aspect_ratio ?? "9:16",
    layout: look.layout ?? "auto",
    hook: h === true ? "title" : h === false ? "off" : "words",
    words: typeof h === "string" ? h : "",
  };
}

/** The body fields for a form: what is not "keep"; or a sentence saying what is missing. */
export function bodyOf(f: LookForm): Partial<Record<keyof ClipLook, string | boolean>> | string {
  const out: Partial<Record<keyof ClipLook, string | boolean>> = {};
  for (const k of ["style", "caption_size", "caption_position", "fit", "background", "aspect_ratio", "layout"] as const)
    if (f[k]) out[k] = f[k];
  if (f.hook) {
    const v = hookValue(f.hook, f.words);
    if (v === null) return "Write the words of the hook title, or choose another hook title.";
    out.hook_title = v;
  }
  if (f.censor) out.censor = f.censor;
  if (f.emphasis) out.emphasis = f.emphasis === "on";
  if (f.emoji) out.emoji = f.emoji === "on";
  return out;
}

const previewUrl = (episodeId: string, style: string) =>
  `/web/api/v1/episodes/${encodeURIComponent(episodeId)}/styles/${encodeURIComponent(style)}/preview.png`;

interface Props {
  episodeId: string;
  styles: CaptionStyle[];
  value: LookForm;
  onChange(f: LookForm): void;
  keep?: boolean;
  disabled?: boolean;
  /** The previews can be drawn (the episode is transcribed); before that each style shows a plain card. */
  previews: boolean;
}

export function LookFields({ episodeId, styles, value, onChange, keep, disabled, previews }: Props) {
  const id = useId();
  const set = (k: keyof LookForm) => (e: { currentTarget: { value: string } }) =>
    onChange({ ...value, [k]: e.currentTarget.value });
  const select = (k: keyof LookForm, label: string, options: ReadonlyArray<readonly [string, string]>) => (
    <div className="field">
      <label htmlFor={`${id}-${k}`}>{label}</label>
      <select id={`${id}-${k}`} value={value[k]} onChange={set(k)} disabled={disabled}>
        {keep && <option value="">Keep as it is</option>}
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <div className="look stack">
      <fieldset disabled={disabled}>
        <legend>Caption style</legend>
        <div className="gallery">
          {keep && (
            <label className="style-pick style-keep">
              <input type="radio" name={`${id}-style`} value="" checked={value.style === ""} onChange={set("style")} />
              <span className="style-name">Keep the current style</span>
            </label>
          )}
          {styles.map((s) => (
            <StylePick
              key={s.id}
              style={s}
              name={`${id}-style`}
              src={previews ? previewUrl(episodeId, s.id) : null}
              checked={value.style === s.id}
              onChange={set("style")}
            />
          ))}
        </div>
      </fieldset>
      <div className="row-fields">
        {select("caption_size", "Caption size", SIZES)}
        {select("caption_position", "Caption position", POSITIONS)}
        {select("aspect_ratio", "Shape", ASPECTS)}
        {select("fit", "Fit", FITS)}
        {select("layout", "Camera", LAYOUTS)}
        <BackgroundField
          id={`${id}-background`}
          value={value.background}
          keep={keep}
          disabled={disabled}
          onChange={(background) => onChange({ ...value, background })}
        />
      </div>
      <div className="row-fields">
        {select("censor", "Profanity", CENSORS)}
        {select("emphasis", "Emphasis", EMPHASES)}
        {select("emoji", "Emoji", EMOJIS)}
      </div>
      <fieldset disabled={disabled}>
        <legend>Hook title</legend>
        <p className="hint">A title box over the first seconds of the clip.</p>
        <div className="choices-row">
          {keep && <Radio name={`${id}-hook`} value="" label="Keep" current={value.hook} onChange={set("hook")} />}
          <Radio
            name={`${id}-hook`}
            value="title"
            label="The clip's title"
            current={value.hook}
            onChange={set("hook")}
          />
          <Radio name={`${id}-hook`} value="off" label="Off" current={value.hook} onChange={set("hook")} />
          <Radio name={`${id}-hook`} value="words" label="My words" current={value.hook} onChange={set("hook")} />
        </div>
        {value.hook === "words" && (
          <div className="field">
            <label htmlFor={`${id}-words`}>Hook words</label>
            <input
              id={`${id}-words`}
              type="text"
              value={value.words}
              onChange={set("words")}
              maxLength={120}
              autoComplete="off"
            />
          </div>
        )}
      </fieldset>
    </div>
  );
}

function Radio({
  name,
  value,
  label,
  current,
  onChange,
}: {
  name: string;
  value: string;
  label: string;
  current: string;
  onChange(e: { currentTarget: { value: string } }): void;
}) {
  return (
    <label className="choice">
      <input type="radio" name={name} value={value} checked={current === value} onChange={onChange} /> {label}
    </label>
  );
}

function StylePick({
  style,
  name,
  src,
  checked,
  onChange,
}: {
  style: CaptionStyle;
  name: string;
  src: string | null;
  checked: boolean;
  onChange(e: { currentTarget: { value: string } }): void;
}) {
  const [failed, setFailed] = useState(false);
  return (
    <label className={`style-pick${checked ? " picked" : ""}`} title={style.description}>
      <input type="radio" name={name} value={style.id} checked={checked} onChange={onChange} aria-label={style.name} />
      {failed || !src ? (
        <span className="style-img style-none" aria-hidden="true" />
      ) : (
        <img
          className="style-img"
          src={src}
          width={108}
          height={192}
          loading="lazy"
          decoding="async"
          alt={`Captions in the ${style.name} style on a frame of this episode`}
          onError={() => setFailed(true)}
        />
      )}
      <span className="style-name" aria-hidden="true">
        {style.name}
      </span>
    </label>
  );
}

/** Background: a named fill, or a colour of one's own (any #RRGGBB, as the API takes). */
function BackgroundField(p: {
  id: string;
  value: string;
  keep?: boolean;
  disabled?: boolean;
  onChange(v: string): void;
}) {
  const own = p.value.startsWith("#");
  return (
    <div className="field">
      <label htmlFor={p.id}>Background</label>
      <select
        id={p.id}
        value={own ? "#" : p.value}
        onChange={(e) => p.onChange(e.currentTarget.value === "#" ? "#1f2937" : e.currentTarget.value)}
        disabled={p.disabled}
      >
        {p.keep && <option value="">Keep as it is</option>}
        {BACKGROUNDS.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
        <option value="#">A colour of my own</option>
      </select>
      {own && (
        <input
          type="color"
          aria-label="Background colour"
          value={p.value}
          onChange={(e) => p.onChange(e.currentTarget.value)}
          disabled={p.disabled}
        />
      )}
    </div>
  );
}
