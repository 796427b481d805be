/**
 * Escape attempt by a model racing its own tools: a sandboxed `bash` call plants and removes,
 * in a loop, symbolic links to host files at the very names the parallel file tool calls write,
 * edit and read (the final component, not a directory above it). The links are made inside the
 * sandbox but followed, if at all, by the host-side tools. Control: the same names without the
 * race are written, and a naive host write through one planted link does reach the outside.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { readlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: links planted at a tool's own path"), () => {
  let ground: Playground;
  let run: Run;
  beforeAll(async () => {
    ground = await playground();
    run = createRegistry({ tools: [createBashTool(), ...createFileTools()] }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace: ground.workspace },
      condenseThreshold: Number.POSITIVE_INFINITY,
    });
  });
  afterAll(async () => ground.dispose());

  escapeAttempt(
    "races",
    "write, edit and read race a sandboxed bash loop planting links to host files at their own paths",
    async () => {
      const victim = path.join(ground.outside, "victim");
      const fresh = path.join(ground.outside, "new");
      writeFileSync(victim, "original\n");
      // The planting loop runs until the host says stop (a file it makes), not for a fixed time:
      // at load 8+ a 3 s loop planted only 20 times, too few to show a race. It counts its
      // plantings in a file the host reads, so the host races until it has seen enough of them.
      const plantings = path.join(ground.workspace, "plantings");
      const planted = () => {
        try {
          return Number(readFileSync(plantings, "utf8")) || 0;
        } catch {
          return 0;
        }
      };
      const flipper = sh(
        run,
        `end=$((SECONDS+25)); n=0; while [ ! -e stop ] && [ $SECONDS -lt $end ]; do ln -s ${quote(victim)} t 2>/dev/null; ln -s ${quote(fresh)} n 2>/dev/null; ` +
          `ln -s ${quote(victim)} w 2>/dev/null; rm -f t n w; echo x > w; rm -f w; n=$((n+1)); echo $n > plantings; done; echo $n`,
      );
      // Racing starts once the loop runs (a sandbox starts in seconds on a loaded machine).
      const waitedFrom = Date.now();
      while (planted() === 0 && Date.now() - waitedFrom < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
      const outcomes = new Map<string, number>();
      let leaked = "";
      const started = Date.now();
      // At least 2.2 s, then until the loop planted more than 40 times and some call met a link
      // (at most 15 s: the checks below then fail and say what was missing).
      const raced = () => planted() > 40 && (outcomes.get("symlink_escape") ?? 0) > 0;
      while (Date.now() - started < 2_200 || (!raced() && Date.now() - started < 15_000)) {
        const results = await Promise.all([
          run.call("write", { path: "t", content: "pwned\n" }),
          run.call("write", { path: "n", content: "pwned\n" }),
          run.call("edit", { path: "w", old_string: "x", new_string: "pwned" }),
          run.call("read", { path: "t" }),
        ]);
        for (const result of results) {
          const key = result.ok ? "ok" : result.error.code;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          if (result.ok && String(result.output).includes("original")) leaked = String(result.output);
        }
      }
      writeFileSync(path.join(ground.workspace, "stop"), "");
      // The loop really raced: it planted links many times, and some calls met them.
      expect(Number((await flipper).stdout)).toBeGreaterThan(20);
      expect(outcomes.get("symlink_escape") ?? 0).toBeGreaterThan(0);
      expect(readFileSync(victim, "utf8")).toBe("original\n");
      expect(existsSync(fresh)).toBe(false);
      expect(leaked).toBe("");
      // Control: without the race the same write works, and a naive host write through a link
      // the sandbox plants does reach the outside file.
      expect((await run.call("write", { path: "t", content: "mine\n" })).ok).toBe(true);
      await sh(run, `rm -f t stop plantings; ln -s ${quote(victim)} planted`);
      expect(await readlink(path.join(ground.workspace, "planted"))).toBe(victim);
      await writeFile(path.join(ground.workspace, "planted"), "naive\n");
      expect(readFileSync(victim, "utf8")).toBe("naive\n");
    },
    60_000,
  );
});
