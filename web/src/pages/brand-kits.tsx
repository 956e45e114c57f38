/**
 * Brand kits: make one, set its colours with colour pickers, its logo's corner, size and opacity,
 * intro and outro cards and show name, upload its font, logo and cover art, or delete it. These
 * are the API's own brand kit operations, under /web; a clip names a kit in the studio's cut panel.
 */
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { call } from "../api";
import { ErrorText, Field, handler, Notice, useAction, useTitle } from "../ui";
import "./brand-kits.css";

export interface BrandKit {
  brand_kit_id: string;
  name: string;
  colours: { primary: string; accent: string; background: string };
  font: { family: string; file_name: string; bundled: boolean } | null;
  logo: { uploaded: boolean; corner: string; size: number; opacity: number };
  /** order: hook_first (the clip opens on its picture, the card after it) or card_first. */
  intro: { text: string; seconds: number; order?: "hook_first" | "card_first" } | null;
  outro: { text: string; seconds: number } | null;
  cover: { uploaded: boolean };
  show_name: string | null;
}

const CORNERS = ["top-left", "top-right", "bottom-left", "bottom-right"];
const COLOURS = [
  ["primary", "Caption text"],
  ["accent", "Active word and emphasis"],
  ["background", "Boxes, cards and pads"],
] as const;

export default function BrandKitsPage() {
  useTitle("Brand kits");
  const [kits, setKits] = useState<BrandKit[] | null>(null);
  const [limit, setLimit] = useState(0);
  const list = useAction();
  const load = useCallback(
    () =>
      list.run(async () => {
        const r = await call<{ brand_kits: BrandKit[]; limit: number }>("GET", "/brand-kits");
        setKits(r.brand_kits);
        setLimit(r.limit);
      }),
    [list.run],
  );
  useEffect(() => void load(), [load]);
  return (
    <>
      <h1>Brand kits</h1>
      <p className="lead">
        A kit holds your font, colours, logo, intro and outro cards and cover art. Name it when you cut clips: the
        captions take its font and colours, the logo sits in its corner.
      </p>
      <AddKit onAdded={handler(load)} full={kits !== null && kits.length >= limit} limit={limit} />
      <section aria-labelledby="kits-h">
        <h2 id="kits-h">Your kits</h2>
        <ErrorText error={list.error} />
        {kits === null ? (
          <p className="loading">Loading kits…</p>
        ) : kits.length === 0 ? (
          <p>No kits yet.</p>
        ) : (
          kits.map((k) => <KitCard key={k.brand_kit_id} kit={k} onChange={handler(load)} />)
        )}
      </section>
    </>
  );
}

function AddKit({ onAdded, full, limit }: { onAdded: () => void; full: boolean; limit: number }) {
  const { busy, error, run } = useAction();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    if (await run(async () => (await call("POST", "/brand-kits", { name, bundled_font: "DejaVu Sans" }), true))) {
      form.reset();
      onAdded();
    }
  }
  return (
    <section aria-labelledby="add-kit-h" className="card">
      <h2 id="add-kit-h">New kit</h2>
      <form onSubmit={handler(submit)} className="stack">
        <Field
          label="Name"
          name="name"
          required
          maxLength={80}
          placeholder="My show"
          autoComplete="off"
          hint="It starts with DejaVu Sans (a free font) and white, yellow and near-black; change them below."
        />
        <ErrorText error={error} />
        {full && (
          <Notice kind="warn">You have {limit} kits, the most an account keeps. Delete one to make another.</Notice>
        )}
        <div>
          <button type="submit" disabled={busy || full}>
            Make kit
          </button>
        </div>
      </form>
    </section>
  );
}

const cardOf = (text: FormDataEntryValue | null, seconds: FormDataEntryValue | null) => {
  const t = String(text ?? "").trim();
  return t ? { text: t, seconds: Number(seconds) || 1.5 } : null;
};

const withOrder = (card: ReturnType<typeof cardOf>, order: FormDataEntryValue | null) =>
  card && { ...card, order: order === "card_first" ? ("card_first" as const) : ("hook_first" as const) };

function KitCard({ kit, onChange }: { kit: BrandKit; onChange: () => void }) {
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const path = `/brand-kits/${encodeURIComponent(kit.brand_kit_id)}`;
  const id = kit.brand_kit_id;

  async function save(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setSaved(null);
    const f = new FormData(e.currentTarget);
    const body = {
      name: String(f.get("name") ?? "").trim(),
      colours: {
        primary: String(f.get("primary")),
        accent: String(f.get("accent")),
        background: String(f.get("background")),
      },
      logo: { corner: String(f.get("corner")), size: Number(f.get("size")), opacity: Number(f.get("opacity")) },
      intro: withOrder(cardOf(f.get("intro"), f.get("intro_seconds")), f.get("intro_order")),
      outro: cardOf(f.get("outro"), f.get("outro_seconds")),
      show_name: String(f.get("show_name") ?? "").trim() || null,
    };
    if (await run(async () => (await call("PATCH", path, body), true))) {
      setSaved("Saved. Clips cut from now on use the kit as it is now.");
      onChange();
    }
  }
  async function upload(what: "font" | "logo" | "cover", file: File | undefined) {
    if (!file) return;
    setSaved(null);
    const q = what === "font" ? `?file_name=${encodeURIComponent(file.name)}` : "";
    if (await run(async () => (await call("PUT", `${path}/${what}${q}`, file), true))) {
      setSaved(`${what === "cover" ? "Cover art" : what === "font" ? "Font" : "Logo"} uploaded.`);
      onChange();
    }
  }
  async function remove() {
    if (!window.confirm(`Delete the kit ${kit.name}? Clips already cut keep their look.`)) return;
    if (await run(async () => (await call("DELETE", path), true))) onChange();
  }
  return (
    <article className="card kit" aria-label={kit.name}>
      <form onSubmit={handler(save)} className="stack">
        <Field label="Name" name="name" id={`${id}-name`} required maxLength={80} defaultValue={kit.name} />
        <fieldset>
          <legend>Colours</legend>
          <div className="choices">
            {COLOURS.map(([k, label]) => (
              <label className="choice" key={k}>
                <input
                  type="color"
                  name={k}
                  defaultValue={kit.colours[k].toLowerCase()}
                  aria-label={`${label} colour`}
                />{" "}
                {label}
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Logo {kit.logo.uploaded ? "(uploaded)" : "(none yet)"}</legend>
          <div className="row-fields">
            <div className="field">
              <label htmlFor={`${id}-corner`}>Corner</label>
              <select id={`${id}-corner`} name="corner" defaultValue={kit.logo.corner}>
                {CORNERS.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </div>
            <Field
              label="Size (share of the width, 0.05–0.4)"
              name="size"
              id={`${id}-size`}
              type="number"
              min={0.05}
              max={0.4}
              step={0.01}
              defaultValue={kit.logo.size}
            />
            <Field
              label="Opacity (0–1)"
              name="opacity"
              id={`${id}-opacity`}
              type="number"
              min={0}
              max={1}
              step={0.05}
              defaultValue={kit.logo.opacity}
            />
          </div>
        </fieldset>
        <div className="row-fields">
          <Field
            label="Intro card text (on the background colour; empty: none)"
            name="intro"
            id={`${id}-intro`}
            maxLength={80}
            defaultValue={kit.intro?.text ?? ""}
          />
          <Field
            label="Intro seconds (1–2)"
            name="intro_seconds"
            id={`${id}-intro-s`}
            type="number"
            min={1}
            max={2}
            step={0.5}
            defaultValue={kit.intro?.seconds ?? 1.5}
          />
          <div className="field">
            <label htmlFor={`${id}-intro-order`}>Intro plays</label>
            <select id={`${id}-intro-order`} name="intro_order" defaultValue={kit.intro?.order ?? "hook_first"}>
              <option value="hook_first">After the clip: the clip opens on its picture and hook</option>
              <option value="card_first">First, before the clip</option>
            </select>
          </div>
          <Field
            label="Outro card text (empty: none)"
            name="outro"
            id={`${id}-outro`}
            maxLength={80}
            defaultValue={kit.outro?.text ?? ""}
          />
          <Field
            label="Outro seconds (1–2)"
            name="outro_seconds"
            id={`${id}-outro-s`}
            type="number"
            min={1}
            max={2}
            step={0.5}
            defaultValue={kit.outro?.seconds ?? 1.5}
          />
        </div>
        <Field
          label="Show name (drawn on audio clips)"
          name="show_name"
          id={`${id}-show`}
          maxLength={80}
          defaultValue={kit.show_name ?? ""}
        />
        <div className="actions">
          <button type="submit" disabled={busy}>
            Save kit
          </button>
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={handler(remove)}
            aria-label={`Delete ${kit.name}`}
          >
            Delete
          </button>
        </div>
      </form>
      <fieldset className="files">
        <legend>Files</legend>
        <p className="hint">
          Font:{" "}
          {kit.font
            ? `${kit.font.family} (${kit.font.file_name}, ${kit.font.bundled ? "built in" : "uploaded"})`
            : "the caption style's own"}
          . Cover art: {kit.cover.uploaded ? "uploaded" : "none"}.
        </p>
        <FileInput
          label="Upload font (TTF or OTF)"
          accept=".ttf,.otf,font/ttf,font/otf"
          id={`${id}-font`}
          disabled={busy}
          onFile={handler((f) => upload("font", f))}
        />
        <FileInput
          label="Upload logo (PNG or SVG)"
          accept=".png,.svg,image/png,image/svg+xml"
          id={`${id}-logo`}
          disabled={busy}
          onFile={handler((f) => upload("logo", f))}
        />
        <FileInput
          label="Upload cover art (PNG, JPEG or WebP)"
          accept=".png,.jpg,.jpeg,.webp,image/png,image/jpeg,image/webp"
          id={`${id}-cover`}
          disabled={busy}
          onFile={handler((f) => upload("cover", f))}
        />
      </fieldset>
      <div aria-live="polite">{saved && <Notice kind="ok">{saved}</Notice>}</div>
      <ErrorText error={error} />
    </article>
  );
}

function FileInput({
  label,
  accept,
  id,
  disabled,
  onFile,
}: {
  label: string;
  accept: string;
  id: string;
  disabled: boolean;
  onFile: (f: File | undefined) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="file"
        accept={accept}
        disabled={disabled}
        onChange={(e) => (onFile(e.currentTarget.files?.[0]), (e.currentTarget.value = ""))}
      />
    </div>
  );
}
