/**
 * Red team round 34: a `readOnlyPaths` entry's file reached through a hard link made before the
 * entry was protected. The entry is bound read-only, so a command cannot hard-link its files out
 * (`EXDEV`, round 25); but a command of an earlier run over the same workspace without the entry
 * (or before the host added it) can, and the link is then a second name of the same inode in the
 * writable workspace. Held when a command of the protected run cannot change the entry's file
 * through that name (write, truncate, append, `mmap` of it). Control: the same link, written by
 * the earlier run's command, changes the entry's file (the link is a real second name).
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, quote, spawnIn } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** A shell line that runs `write` on `target` and says whether it could. */
const attempt = (label: string, write: string) => `({ ${write}; } 2>/dev/null && echo ${label}-written || echo ${label}-refused)`;

describe.skipIf(bubblewrap.missing)(
  bubblewrap.label("escape attempts: round 34, hard links to a readOnlyPaths entry's files made before it was protected"),
  () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
    });
    afterAll(async () => ground.dispose());

    escapeAttempt(
      "paths",
      "a hard link to a readOnlyPaths entry's file made by an earlier run's command, written by the protected run's command",
      async () => {
        const base = path.join(ground.workspace, "case");
        const entry = path.join(base, "vendor");
        await mkdir(path.join(entry, "deep"), { recursive: true });
        await writeFile(path.join(entry, "lib.js"), "kept\n");
        await writeFile(path.join(entry, "deep", "more.js"), "kept too\n");
        const open = new BubblewrapSandbox({ scope: "workspace", workspace: ground.workspace });
        const planted = await spawnIn(
          open,
          `cd ${quote(base)} && ln vendor/lib.js planted.js && mkdir -p hidden/a && ln vendor/deep/more.js hidden/a/more.js && echo planted`,
        );
        expect(planted).toBe("planted\n");
        const guarded = new BubblewrapSandbox({ scope: "workspace", workspace: ground.workspace, readOnlyPaths: [entry] });
        const tried = await spawnIn(
          guarded,
          [
            `cd ${quote(base)}`,
            attempt("direct", "printf x > vendor/lib.js"),
            attempt("append", "printf x >> planted.js"),
            attempt("truncate", "truncate -s 0 hidden/a/more.js"),
            attempt("dd", "printf y | dd of=planted.js conv=notrunc status=none"),
            "cat vendor/lib.js vendor/deep/more.js",
            // Control inside the same command: a file beside the entry is written.
            attempt("beside", "printf x > beside.txt"),
          ].join("; "),
        );
        expect(readFileSync(path.join(entry, "lib.js"), "utf8")).toBe("kept\n");
        expect(readFileSync(path.join(entry, "deep", "more.js"), "utf8")).toBe("kept too\n");
        expect(tried).toBe("direct-refused\nappend-refused\ntruncate-refused\ndd-refused\nkept\nkept too\nbeside-written\n");
        // Control: the earlier run's command writes the entry's file through the same link.
        expect(await spawnIn(open, `cd ${quote(base)} && printf changed > planted.js && cat vendor/lib.js`)).toBe("changed");
      },
      120_000,
    );
  },
);
