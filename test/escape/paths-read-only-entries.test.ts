/**
 * Red team round 25: `readOnlyPaths` entries inside the workspace (bubblewrap, scope
 * `workspace`), attacked by the commands the model runs and by how the host spells them.
 *
 * - A nested entry (`third/vendor`) was read-only only for the command that saw it mounted: the
 *   command renamed its parent (the read-only mount moved with it) and made `third/vendor`
 *   again, and the next command's read-only bind covered the new empty directory while the
 *   host's files, now at `moved/vendor`, were writable. The directories between the workspace
 *   and each entry are now pinned (bound onto themselves: a mount point cannot be renamed).
 * - An entry spelled otherwise than its real path (`<ws>/vendor/`, `<ws>//vendor`,
 *   `<ws>/./vendor`, `<ws>/x/../vendor`, through a link to a parent, or a link to the directory)
 *   was never found mounted at its own path: every command was refused before it ran, blaming a
 *   path changed during setup. Entries are now taken as their real paths.
 *
 * Held: a hard link out of an entry (`EXDEV`), a write through `/proc/self/root`.
 * Controls in each: the workspace beside the entry is written, the entry's files are read, and
 * without the entry the same renames go through.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, quote, spawnIn } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** A shell line that writes `x` to `target` and says whether it could. */
const attempt = (target: string) => `({ printf x > ${quote(target)}; } 2>/dev/null && echo written || echo refused)`;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: readOnlyPaths entries inside the workspace"), () => {
  let ground: Playground;
  let counter = 0;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());

  /** A fresh directory of the workspace holding `relative` (a directory) with `lib.js` in it. */
  function layout(relative: string): { base: string; entry: string } {
    const base = path.join(ground.workspace, `case-${++counter}`);
    const entry = path.join(base, relative);
    mkdirSync(entry, { recursive: true });
    writeFileSync(path.join(entry, "lib.js"), "kept\n");
    return { base, entry };
  }

  function sandboxFor(readOnlyPaths: readonly string[]): BubblewrapSandbox {
    return new BubblewrapSandbox({ scope: "workspace", workspace: ground.workspace, readOnlyPaths });
  }

  escapeAttempt(
    "paths",
    "a nested readOnlyPaths entry: one command renames its parent and remakes it, the next writes the host's files",
    async () => {
      const { base, entry } = layout("third/vendor");
      const sandbox = sandboxFor([entry]);
      const renamed = await spawnIn(
        sandbox,
        `cd ${quote(base)}; (mv third moved 2>/dev/null && echo moved || echo not-moved); mkdir -p third/vendor; ${attempt("third/vendor/lib.js")}`,
      );
      expect(renamed).toBe("not-moved\nrefused\n");
      const wrote = await spawnIn(
        sandbox,
        `cd ${quote(base)}; ${attempt("moved/vendor/lib.js")}; ${attempt("third/vendor/lib.js")}; ${attempt("beside.txt")}; cat third/vendor/lib.js`,
      );
      expect(wrote).toBe("refused\nrefused\nwritten\nkept\n");
      expect(readFileSync(path.join(entry, "lib.js"), "utf8")).toBe("kept\n");
      // Control: without the entry the same rename goes through (the attack is a real one).
      const control = layout("third/vendor");
      expect(await spawnIn(sandboxFor([]), `cd ${quote(control.base)}; mv third moved && echo moved`)).toBe("moved\n");
    },
    60_000,
  );

  escapeAttempt(
    "paths",
    "a readOnlyPaths entry three levels down: each directory above it renamed, removed or swapped for a link",
    async () => {
      const { base, entry } = layout("a/b/vendor");
      mkdirSync(path.join(base, "a", "sibling"));
      const sandbox = sandboxFor([entry]);
      const output = await spawnIn(
        sandbox,
        [
          `cd ${quote(base)}`,
          // Control: a sibling of a pinned directory still moves.
          "(mv a/sibling a/sibling2 2>/dev/null && echo sibling-moved || echo sibling-kept)",
          "(mv a x 2>/dev/null && echo moved-a || echo kept-a)",
          "(mv a/b a/c 2>/dev/null && echo moved-b || echo kept-b)",
          "(rm -rf a 2>/dev/null; [ -e a/b/vendor/lib.js ] && echo present || echo removed)",
          "(mkdir elsewhere && mv a/b elsewhere/ 2>/dev/null && echo swapped || echo kept-swap)",
          "cat a/b/vendor/lib.js",
        ].join("; "),
      );
      expect(output).toBe("sibling-moved\nkept-a\nkept-b\npresent\nkept-swap\nkept\n");
      expect(await spawnIn(sandbox, `cd ${quote(base)}; ${attempt("a/b/vendor/lib.js")}`)).toBe("refused\n");
      expect(readFileSync(path.join(entry, "lib.js"), "utf8")).toBe("kept\n");
    },
    60_000,
  );

  escapeAttempt(
    "paths",
    "readOnlyPaths entries spelled with a trailing slash, `//`, `/./` and `x/../`: read-only, and commands still run",
    async () => {
      const spellings = (entry: string, base: string) => [
        `${entry}/`,
        entry.replace(`${path.sep}vendor`, `${path.sep}${path.sep}vendor`),
        entry.replace(`${path.sep}vendor`, `${path.sep}.${path.sep}vendor`),
        `${path.join(base, "gone")}${path.sep}..${path.sep}vendor`,
      ];
      const probe = layout("vendor");
      for (const spelled of spellings(probe.entry, probe.base)) {
        const { base, entry } = layout("vendor");
        const spelledHere = spelled.replace(probe.base, base);
        const output = await spawnIn(
          sandboxFor([spelledHere]),
          `cd ${quote(base)}; ${attempt("vendor/lib.js")}; ${attempt("vendor/new.js")}; ${attempt("beside.txt")}; cat vendor/lib.js`,
        );
        expect(output, spelledHere).toBe("refused\nrefused\nwritten\nkept\n");
        expect(existsSync(path.join(entry, "new.js"))).toBe(false);
      }
    },
    60_000,
  );

  escapeAttempt(
    "paths",
    "readOnlyPaths entries named through a link to the workspace's parent, and an entry that is a link to the directory",
    async () => {
      const first = layout("vendor");
      const parentLink = path.join(ground.outside, `parent-${counter}`);
      symlinkSync(path.dirname(ground.workspace), parentLink);
      const throughLink = path.join(parentLink, path.relative(path.dirname(ground.workspace), first.entry));
      const second = layout("vendor");
      const entryLink = path.join(second.base, "vendor-link");
      symlinkSync("vendor", entryLink);
      const sandbox = sandboxFor([throughLink, entryLink]);
      const output = await spawnIn(
        sandbox,
        [
          attempt(path.join(first.entry, "lib.js")),
          attempt(path.join(second.entry, "lib.js")),
          attempt(path.join(second.base, "beside.txt")),
          `cat ${quote(path.join(first.entry, "lib.js"))} ${quote(path.join(second.entry, "lib.js"))}`,
        ].join("; "),
      );
      expect(output).toBe("refused\nrefused\nwritten\nkept\nkept\n");
    },
    60_000,
  );

  escapeAttempt(
    "paths",
    "a readOnlyPaths entry's file hard-linked into the writable workspace, or written through /proc/self/root",
    async () => {
      const { base, entry } = layout("vendor");
      const output = await spawnIn(
        sandboxFor([entry]),
        [
          `cd ${quote(base)}`,
          "(ln vendor/lib.js linked.js 2>/dev/null && echo linked || echo not-linked)",
          attempt("linked.js"),
          attempt(`/proc/self/root${path.join(entry, "lib.js")}`),
          attempt(`/proc/1/root${path.join(entry, "lib.js")}`),
          // Control: a file beside the entry is hard-linked as usual.
          "(printf y > own.js && ln own.js own-link.js && echo own-linked)",
        ].join("; "),
      );
      expect(output).toBe("not-linked\nwritten\nrefused\nrefused\nown-linked\n");
      expect(readFileSync(path.join(entry, "lib.js"), "utf8")).toBe("kept\n");
    },
    60_000,
  );
});
