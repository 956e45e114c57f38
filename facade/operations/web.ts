/**
 * The website's own operations (web-only: served under /web, not in OpenAPI or the MCP tools),
 * and the ops route behind `clipd account reset-password`.
 */
import type { Operation } from "../registry.js";
import { adminResetPassword, WEB_ACCOUNT_OPERATIONS } from "./web-account.js";
import { WEB_KEY_OPERATIONS } from "./web-keys.js";
import { WEB_OAUTH_OPERATIONS } from "./oauth-consent.js";
import { WEB_SESSION_OPERATIONS } from "./web-session.js";
import { WEB_UPLOAD_OPERATIONS } from "./web-uploads.js";
import { WEB_STUDIO_OPERATIONS } from "./web-studio.js";
import { WEB_RESULTS_OPERATIONS } from "./web-studio-results.js";
import { WEB_CLIP_EDITOR_OPERATIONS } from "./web-clip-editor.js";

export const WEB_OPERATIONS: Operation[] = [
  ...WEB_SESSION_OPERATIONS,
  ...WEB_ACCOUNT_OPERATIONS,
  ...WEB_KEY_OPERATIONS,
  ...WEB_OAUTH_OPERATIONS,
  ...WEB_UPLOAD_OPERATIONS,
  ...WEB_STUDIO_OPERATIONS,
  ...WEB_RESULTS_OPERATIONS,
  ...WEB_CLIP_EDITOR_OPERATIONS,
  adminResetPassword,
];
