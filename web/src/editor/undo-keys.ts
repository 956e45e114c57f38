/**
 * Ctrl+Z (⌘Z) undoes the editor's last edit and Ctrl+Shift+Z or Ctrl+Y (⌘⇧Z) redoes it, wherever
 * the focus is on the page: the word boxes are the editor's own state, so their typing is undone
 * by the editor's history (history.ts), one word box at a time, not by the browser's.
 */
import { useEffect } from "react";

export function useUndoKeys(undo: () => void, redo: () => void): void {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const k = e.key.toLowerCase();
      if (k === "z" && !e.shiftKey) undo();
      else if ((k === "z" && e.shiftKey) || (k === "y" && !e.metaKey)) redo();
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  }, [undo, redo]);
}
