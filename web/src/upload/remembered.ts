/**
 * The upload address of an episode whose file is still going up, kept in this browser's
 * localStorage (per episode id, until it expires), so a reload or a closed tab can go on into the
 * same episode from its page: choosing the same file again resumes from the bytes the address
 * holds (HEAD's Upload-Offset). The address is a capability for that one upload and lasts 2 hours.
 */
import type { UploadTarget } from "./engine";

const KEY = (id: string) => `clipd.upload.${id}`;

export interface RememberedUpload {
  target: UploadTarget;
  fileName: string;
  size: number;
}

export function rememberUpload(id: string, u: RememberedUpload): void {
  try {
    localStorage.setItem(KEY(id), JSON.stringify(u));
  } catch {
    /* private mode or full: resuming after a reload is then not offered */
  }
}

export function recallUpload(id: string): RememberedUpload | null {
  try {
    const raw = localStorage.getItem(KEY(id));
    if (!raw) return null;
    const u = JSON.parse(raw) as RememberedUpload;
    if (!u?.target?.url || Date.parse(u.target.expires_at ?? "") <= Date.now()) {
      localStorage.removeItem(KEY(id));
      return null;
    }
    return u;
  } catch {
    return null;
  }
}

export function forgetUpload(id: string): void {
  try {
    localStorage.removeItem(KEY(id));
  } catch {
    /* nothing kept */
  }
}
