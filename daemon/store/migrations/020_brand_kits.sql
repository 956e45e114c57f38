-- Brand kits (issue 19): what an account saves once and names on its clips: a font, three
-- colours, a logo with its placement, intro and outro cards, cover art and a show name. The
-- uploaded files live in storage under brand/<account>/<kit>/; the row keeps their keys. A clip
-- job copies the kit into its run's input (daemon/kit/brand.ts), so editing or deleting a kit
-- never changes a render already queued.
create table if not exists brand_kits (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  name text not null,
  -- "#RRGGBB" each (checked by daemon/brand/kit-rows.ts).
  primary_colour text not null,
  accent_colour text not null,
  background_colour text not null,
  -- An uploaded TTF/OTF ({key, family, file_name}) or a bundled font ({bundled, family}); null: the style's own.
  font jsonb,
  -- {key, corner, size, opacity}; the key names a PNG (an SVG is rasterised when saved).
  logo jsonb,
  intro jsonb,
  outro jsonb,
  cover_key text,
  show_name text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists brand_kits_account_idx on brand_kits (account_id, created_at);

-- An episode's own cover art (an image in storage), set by upload or by link; it is used over the
-- brand kit's for the still behind an audio episode's clips.
alter table episodes add column if not exists cover_key text;
