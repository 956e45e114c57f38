import type { Operation } from "../registry.js";

export const TRANSCRIPT_OPERATIONS: Operation[] = [];
