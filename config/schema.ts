/**
 * The configuration schema: the one place each key's type, limits, default, description and
 * environment variable are written. The `Config` type, the built-in defaults (`configDefaults`),
 * validation (loader.ts compiles this as plain JSON Schema with ajv), `clipd config describe` and
 * docs/configuration.md all come from it. Every block refuses unknown keys, so a typo such as
 * `sever:` stops start-up with a message naming it. The blocks are written in blocks-*.ts, with
 * the helpers of keys.ts.
 */
import { type Static, type TObject, type TSchema, Type } from "@sinclair/typebox";
import { enginesBlocks } from "./blocks-engines.js";
import { mediaBlocks } from "./blocks-media.js";
import { serviceBlocks } from "./blocks-service.js";
import { siteBlocks } from "./blocks-site.js";
import { Key, Str } from "./keys.js";

export const ConfigSchema = Type.Object(
  {
    data_dir: Key(
      Str({ minLength: 1 }),
      "./data",
      "Folder for the embedded database, media storage, inbox/outbox and models.",
      { env: "CLIPD_DATA_DIR" },
    ),
    database_url: Key(Str(), "", "PostgreSQL connection string. Empty: embedded PGlite database under data_dir/db.", {
      env: "DATABASE_URL",
      envEmpty: true,
    }),
    ...serviceBlocks,
    ...mediaBlocks,
    ...siteBlocks,
    ...enginesBlocks,
  },
  { additionalProperties: false, title: "clipd configuration" },
);

/** The effective configuration: every key with a default is set; see ConfigSchema for each key. */
export type Config = Static<typeof ConfigSchema>;

/** Keys whose values are never printed (`clipd config print` masks them, describe shows no value). */
export const SECRET_KEYS = /(api_key|secret_key|secret_access_key|access_key_id|secret|password|token|database_url)$/i;

/** The built-in defaults, made from the schema's `default`s (a fresh copy each call). */
export function configDefaults(schema: TSchema = ConfigSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries((schema as TObject).properties ?? {})) {
    if (p.default !== undefined) out[k] = structuredClone(p.default);
    else if (p.type === "object" && p.properties) out[k] = configDefaults(p);
  }
  return out;
}
