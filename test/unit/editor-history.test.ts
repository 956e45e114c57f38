// The clip editor's undo and redo (web/src/editor/history.ts): one step per edit, one step for a
// run of changes of the same group (the letters typed into one word box, one drag).
import { describe, expect, it } from "vitest";
import { change, redo, start, undo } from "../../web/src/editor/history.js";

describe("the editor's history", () => {
  it("undoes and redoes each edit, and a new edit drops what could be redone", () => {
    let h = start("a");
    h = change(h, "b");
    h = change(h, "c");
    h = undo(h);
    expect(h.present).toBe("b");
    h = undo(h);
    expect(h.present).toBe("a");
    expect(undo(h)).toBe(h);
    h = redo(h);
    expect(h.present).toBe("b");
    h = change(h, "d");
    expect(h.future).toEqual([]);
    expect(redo(h)).toBe(h);
  });
  it("makes one step of a run of changes in one group", () => {
    let h = start("");
    for (const t of ["Z", "Ze", "Zeb", "Zebr", "Zebra"]) h = change(h, t, "word:1:0");
    h = change(h, "Zebra!", "word:1:1");
    expect(undo(h).present).toBe("Zebra");
    expect(undo(undo(h)).present).toBe("");
    // After an undo, the same group starts a new step.
    const again = change(undo(h), "Zebra?", "word:1:1");
    expect(undo(again).present).toBe("Zebra");
  });
});
