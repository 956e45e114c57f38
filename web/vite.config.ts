// Builds the website (web/) into dist/web/, which facade/site.ts serves. Hashed file names under
// /assets/ let the server cache them for a year; index.html itself is never cached.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));
const outDir = fileURLToPath(new URL("../dist/web", import.meta.url));

/**
 * Writes .br and .gz beside each text asset once, at build time, so the server sends compressed
 * bytes without compressing on every request (facade/site.ts picks what the browser accepts).
 */
function precompress(): Plugin {
  return {
    name: "clipd-precompress",
    apply: "build",
    closeBundle() {
      const dir = path.join(outDir, "assets");
      for (const name of readdirSync(dir)) {
        if (!/\.(js|css|svg|json|wasm)$/.test(name)) continue;
        const raw = readFileSync(path.join(dir, name));
        if (raw.length < 1024) continue;
        writeFileSync(
          path.join(dir, name + ".br"),
          brotliCompressSync(raw, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
          }),
        );
        writeFileSync(path.join(dir, name + ".gz"), gzipSync(raw, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: "/",
  plugins: [react(), precompress()],
  publicDir: "public", // copied as is to dist/web/ (robots.txt)
  // JASSUB's worker is an ES module (the clip editor's preview; its wasm is an asset beside it).
  worker: { format: "es" },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    // Small enough that the CSS rides inside the page's first request instead of a second one.
    assetsInlineLimit: 4096,
    reportCompressedSize: false,
  },
  logLevel: "warn",
});
