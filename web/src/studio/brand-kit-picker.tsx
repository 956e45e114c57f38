/**
 * The brand kit a cut uses: the account's kits (GET /brand-kits) in a select, "None" first. Kits
 * are made and edited on the Brand kits page; with none, the picker says where to make one.
 */
import { useEffect, useId, useState } from "react";
import { call } from "../api";
import { Link } from "../router";
import type { BrandKit } from "../pages/brand-kits";

export function BrandKitPicker({
  value,
  onChange,
  disabled,
}: {
  value: string | null;
  onChange: (id: string | null) => void;
  disabled?: boolean;
}) {
  const id = useId();
  const [kits, setKits] = useState<BrandKit[] | null>(null);
  useEffect(() => {
    let live = true;
    call<{ brand_kits: BrandKit[] }>("GET", "/brand-kits")
      .then((r) => live && setKits(r.brand_kits))
      .catch(() => live && setKits([]));
    return () => void (live = false);
  }, []);
  if (kits !== null && kits.length === 0)
    return (
      <p className="hint">
        No brand kit yet: <Link href="/brand-kits">make one</Link> to give clips your font, colours and logo.
      </p>
    );
  return (
    <div className="field">
      <label htmlFor={id}>Brand kit</label>
      <select
        id={id}
        value={value ?? ""}
        disabled={disabled || kits === null}
        onChange={(e) => onChange(e.currentTarget.value || null)}
      >
        <option value="">None</option>
        {(kits ?? []).map((k) => (
          <option key={k.brand_kit_id} value={k.brand_kit_id}>
            {k.name}
          </option>
        ))}
      </select>
    </div>
  );
}
