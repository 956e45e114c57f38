/**
 * Which way clipd's imports may point (docs/architecture.md, "Dependencies between modules").
 * `npm test` runs these rules (test/unit/dependencies.test.ts); a rule broken is a failed test.
 * The composition root is daemon/boot/main.ts with daemon/boot/app.ts and daemon/boot/roles.ts: the only
 * daemon files that may assemble the facade.
 */
const ROOT = "^daemon/boot/";
// The low rooms: what stages and services share (storage, rendering, ops plumbing, the domain's
// errors and limits, the URL guard). They sit below everything else.
const LOW = "(storage|render|ops|domain|net)";
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles hide which module owns what.",
      from: {},
      to: { circular: true },
    },
    {
      name: "plugins-use-the-contract",
      severity: "error",
      comment:
        "A stage plugin may use the stage contract, the low rooms (storage, render, " +
        "ops, domain, net) and its own files.",
      from: { path: "^plugins/" },
      to: {
        path: "^(daemon|facade|config|test|bench)/",
        pathNot: ["^daemon/engine/stage\\.ts$", `^daemon/${LOW}/`, "^config/loader\\.ts$"],
      },
    },
    {
      name: "plugins-keep-to-themselves",
      severity: "error",
      comment: "One plugin does not reach into another; what they share lives in the low rooms.",
      from: { path: "^plugins/([^/]+)/" },
      to: { path: "^plugins/", pathNot: ["^plugins/$1/"] },
    },
    {
      name: "only-the-root-builds-the-facade",
      severity: "error",
      comment: "Nothing but the composition root imports facade/: the daemon does not know its transports.",
      from: { path: "^daemon/", pathNot: ROOT },
      to: { path: "^facade/" },
    },
    {
      name: "domain-does-not-import-stages",
      severity: "error",
      comment: "No daemon room but the composition root imports stage plugins.",
      from: {
        path: `^daemon/(account|free|delivery|watch|engine|store|brand|payments|studio|web|${LOW.slice(1, -1)})/`,
      },
      to: { path: "^plugins/" },
    },
    {
      name: "delivery-knows-no-domain",
      severity: "error",
      comment:
        "The one courier serves webhooks and free callbacks alike: they import delivery/, never the other way round.",
      from: { path: "^daemon/delivery/" },
      to: { path: "^daemon/(account|free|watch|cli)/" },
    },
    {
      name: "low-rooms-stay-low",
      severity: "error",
      comment:
        "The low rooms serve stages and services alike, so they import neither " +
        "rooms above them nor the engine beyond the stage contract.",
      from: { path: `^daemon/${LOW}/` },
      to: {
        path: "^daemon/(account|free|delivery|watch|cli|engine|store|brand|payments|studio|web|boot)/",
        pathNot: "^daemon/engine/stage\\.ts$",
      },
    },
    {
      name: "domain-is-innermost",
      severity: "error",
      comment:
        "daemon/domain/ (refusals, limits, media formats) is the vocabulary every room speaks: it imports no room.",
      from: { path: "^daemon/domain/" },
      to: { path: "^(daemon|facade|plugins|config)/", pathNot: "^daemon/domain/" },
    },
    {
      name: "web-stands-alone",
      severity: "error",
      comment:
        "The website (web/) runs in the browser and reaches clipd only over HTTP " +
        "(web/src/api.ts): it imports no server code.",
      from: { path: "^web/" },
      to: { path: "^(daemon|facade|plugins|config|test|bench|scripts)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|\\.cache)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
