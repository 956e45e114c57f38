import type { Operation } from "../registry.js";

export const ACCOUNT_OPERATIONS: Operation[] = [];
