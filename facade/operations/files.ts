import type { Operation } from "../registry.js";

export const FILE_OPERATIONS: Operation[] = [];
