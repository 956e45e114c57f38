/**
 * The editor's look: shape, caption style, size and position, fit and background, hook title and
 * brand kit. Every change shows on the preview at once; nothing renders until Render.
 */
import { useId } from "react";
import type { CaptionStyle, ClipLook } from "../types";
import { BrandKitPicker } from "../studio/brand-kit-picker";
import { ASPECTS, BACKGROUNDS, FITS, POSITIONS, SIZES } from "../studio/look";

type Options = ReadonlyArray<readonly [string, string]>;

export type EditorLook = ClipLook & { brand_kit?: string | null };

function Select({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: Options;
  onChange(v: string): void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
}

export function LookPanel({
  look,
  styles,
  onChange,
}: {
  look: EditorLook;
  styles: CaptionStyle[];
  onChange(patch: Partial<EditorLook>): void;
}) {
  const hookMode = look.hook_title === true ? "title" : look.hook_title === false ? "off" : "words";
  return (
    <div className="ed-look">
      <fieldset className="ed-shapes">
        <legend>Shape</legend>
        {ASPECTS.map(([v, l]) => (
          <label key={v} className="choice">
            <input
              type="radio"
              name="ed-shape"
              value={v}
              checked={(look.aspect_ratio ?? "9:16") === v}
              onChange={() => onChange({ aspect_ratio: v as EditorLook["aspect_ratio"] })}
            />
            {l}
          </label>
        ))}
      </fieldset>
      <Select
        label="Caption style"
        value={look.style}
        options={styles.map((s) => [s.id, s.name] as const)}
        onChange={(style) => onChange({ style })}
      />
      <Select
        label="Caption size"
        value={look.caption_size}
        options={SIZES}
        onChange={(v) => onChange({ caption_size: v as EditorLook["caption_size"] })}
      />
      <Select
        label="Caption position"
        value={look.caption_position}
        options={POSITIONS}
        onChange={(v) => onChange({ caption_position: v as EditorLook["caption_position"] })}
      />
      <Select label="Fit" value={look.fit} options={FITS} onChange={(v) => onChange({ fit: v as EditorLook["fit"] })} />
      <Select
        label="Background"
        value={look.background}
        options={BACKGROUNDS}
        onChange={(background) => onChange({ background })}
      />
      <fieldset>
        <legend>Hook title</legend>
        {(
          [
            ["title", "The clip's title"],
            ["off", "Off"],
            ["words", "My words"],
          ] as const
        ).map(([v, l]) => (
          <label key={v} className="choice">
            <input
              type="radio"
              name="ed-hook"
              checked={hookMode === v}
              onChange={() => onChange({ hook_title: v === "title" ? true : v === "off" ? false : "" })}
            />
            {l}
          </label>
        ))}
        {hookMode === "words" && (
          <input
            aria-label="Hook words"
            maxLength={120}
            value={typeof look.hook_title === "string" ? look.hook_title : ""}
            onChange={(e) => onChange({ hook_title: e.currentTarget.value })}
          />
        )}
      </fieldset>
      <BrandKitPicker value={look.brand_kit ?? null} onChange={(brand_kit) => onChange({ brand_kit })} />
    </div>
  );
}
