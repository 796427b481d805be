import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nestedAlternatesLeave, storeAlternatesLeave } from "./nested-alternates.js";

describe("alternates of object stores inside the workspace", () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-nested-alternates-")));
  const root = path.join(base, "ws");
  const outside = path.join(base, "host", "objects");
  mkdirSync(outside, { recursive: true });
  /** A store `name/objects` in the workspace, its `info/alternates` holding `alternates` when given. */
  const store = (name: string, alternates?: string): string => {
    const objects = path.join(root, name, "objects");
    mkdirSync(path.join(objects, "info"), { recursive: true });
    if (alternates !== undefined) writeFileSync(path.join(objects, "info", "alternates"), alternates);
    return objects;
  };
  const plain = store("plain");
  const inside = store("inside", "../../plain/objects\n");
  const out = store("out", `${outside}\n`);
  const climbing = store("climbing", "../../../host/objects\n");
  const viaInside = store("via-inside", "../../out/objects\n");
  const quoted = store("quoted", '"../../plain/objects"\n');
  const loopA = store("loop-a", "../../loop-b/objects\n");
  store("loop-b", "../../loop-a/objects\n");
  symlinkSync(outside, path.join(root, "link"));
  const throughLink = store("through-link", "../../link\n");
  // Git reads the entry whole: `../../link ` names the link `link ` (round 45), trimmed `../../link`.
  symlinkSync(outside, path.join(root, "spaced "));
  const spaced = store("spaced", "../../spaced \n");
  const unreadable = store("unreadable");
  mkdirSync(path.join(unreadable, "info", "alternates"));
  // A chain of six stores inside, the last leading out: git reads five stores' alternates.
  for (let level = 1; level <= 6; level++)
    store(`chain${level}`, level === 6 ? `${outside}\n` : `../../chain${level + 1}/objects\n`);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("finds a store whose alternates lead out, at any depth git follows, quoted, spaced or unreadable", () => {
    for (const objects of [out, climbing, viaInside, quoted, throughLink, spaced, unreadable]) {
      expect(storeAlternatesLeave(objects, root), objects).toBe(true);
    }
    expect(storeAlternatesLeave(path.join(root, "chain2", "objects"), root)).toBe(true);
    expect(nestedAlternatesLeave("../../via-inside/objects\n", plain, root)).toBe(true);
    // A repository naming chain2: git reads the alternates of chain2 (depth 1) to chain6 (depth 5).
    expect(nestedAlternatesLeave("../../chain2/objects\n", plain, root)).toBe(true);
  });

  it("keeps stores whose alternates stay inside, a loop, and a chain deeper than git follows", () => {
    for (const objects of [plain, inside, loopA, path.join(root, "absent", "objects")]) {
      expect(storeAlternatesLeave(objects, root), objects).toBe(false);
    }
    expect(storeAlternatesLeave(path.join(root, "chain1", "objects"), root)).toBe(false);
    expect(nestedAlternatesLeave("../../inside/objects\n", plain, root)).toBe(false);
    // Naming chain1: chain6's alternates would be depth 6, which git ignores.
    expect(nestedAlternatesLeave("../../chain1/objects\n", plain, root)).toBe(false);
  });
});
