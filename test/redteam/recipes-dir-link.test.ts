/**
 * The recipe store read `<recipesDir>/<name>.yaml` by path, with only the last component opened
 * without following links. A recipes directory in the workspace (`.myapp/recipes`), or `.myapp`,
 * that a sandboxed command made a link to a host folder had `run_recipe` read the host's `*.yaml`
 * files (names in the `unknown_recipe` hint, a file's parse error in `invalid_recipe`, and a
 * host file that parses run as a recipe). It now reads through handles opened component by
 * component from an anchor (the run's workspace when the directory lies inside it), and a FIFO,
 * a directory or a link in its place is refused at once, never waited on.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { defineTool } from "agent-tool-catalog";
import { RecipeDirectory, recipeToolGroup } from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { failure, hostRun, temporaryDirectory, text } from "../host/support/host-test-kit.js";
import { fifoHasReader } from "../support/fifo-reader.js";
import { settleWithin } from "../support/settle-within.js";

let root: { path: string; remove(): Promise<void> };
let workspace: string;
let outside: string;
let recipesDir: string;

const RECIPE = "description: Say hi\nsteps:\n  - tool: echo\n    args: { text: hi }\n";
const echo = defineTool({
  name: "echo",
  description: "Echo.",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => `echo:${text}`,
});

beforeEach(async () => {
  root = await temporaryDirectory("recipes-dir-link-");
  workspace = path.join(root.path, "workspace");
  outside = path.join(root.path, "outside");
  recipesDir = path.join(workspace, ".myapp", "recipes");
  await mkdir(path.join(outside, "recipes"), { recursive: true });
  for (const folder of [outside, path.join(outside, "recipes")]) {
    await writeFile(path.join(folder, "host-secrets.yaml"), "password: [hunter2\n");
    await writeFile(path.join(folder, "host-recipe.yaml"), RECIPE);
  }
  await mkdir(workspace, { recursive: true });
});
afterEach(() => root.remove());

function sandboxedRun(directory = recipesDir) {
  return hostRun([recipeToolGroup({ recipesDir: directory }), { name: "echo", tools: () => [echo] }], {
    permissions: { sandbox: "workspace", workspace, approval: "none" },
  }).run;
}

describe("a recipes directory in the workspace linked to a host folder before first use", () => {
  for (const linked of ["recipes", ".myapp"] as const) {
    it(`${linked} linked: run_recipe reads nothing through it (no names, no contents, no host recipe run)`, async () => {
      if (linked === "recipes") {
        await mkdir(path.dirname(recipesDir), { recursive: true });
        await symlink(outside, recipesDir);
      } else await symlink(outside, path.dirname(recipesDir));
      const run = sandboxedRun();
      for (const name of ["host-recipe", "host-secrets", "missing"]) {
        const error = failure(await run.call("run_recipe", { name }));
        expect(error.code).toBe("symlink_refused");
        expect(JSON.stringify(error)).not.toMatch(/hunter2|host-secrets|host-recipe/);
      }
    });
  }

  it("control: a plain recipes directory in the workspace, and a linked one outside it, run their recipes", async () => {
    await mkdir(recipesDir, { recursive: true });
    await writeFile(path.join(recipesDir, "hello.yaml"), RECIPE);
    expect(text(await sandboxedRun().call("run_recipe", { name: "hello" }))).toContain("echo:hi");
    const configured = path.join(root.path, "config-recipes");
    await symlink(path.join(outside, "recipes"), configured);
    expect(text(await sandboxedRun(configured).call("run_recipe", { name: "host-recipe" }))).toContain("echo:hi");
    const directory = new RecipeDirectory(configured);
    expect(await directory.names()).toEqual(["host-recipe", "host-secrets"]);
    expect((await directory.load("host-recipe")).steps[0]?.tool).toBe("echo");
  });
});

describe("a recipes directory that is not a directory", () => {
  it("a FIFO in its place, or a FIFO recipe: refused at once, never waited on", async () => {
    await mkdir(path.dirname(recipesDir), { recursive: true });
    execFileSync("mkfifo", [recipesDir]);
    const other = path.join(workspace, "plain");
    await mkdir(other, { recursive: true });
    const pipe = path.join(other, "pipe.yaml");
    execFileSync("mkfifo", [pipe]);
    // "Never waited on" is shown by who holds each FIFO, not by the clock (a 5 s wall bound here
    // measured the machine at load 20): a read blocked on one is a reader of it, and with no
    // writer it would wait for ever. The wall bound left is only a hang guard, so that a blocked
    // read fails with this message (and is woken by the reader check) instead of the test's timeout.
    const waited = () => "waited 15 s" as const;
    const direct = await settleWithin(sandboxedRun().call("run_recipe", { name: "any" }), 15_000, waited);
    const loaded = await settleWithin(
      new RecipeDirectory(other).load("pipe").then(
        () => "loaded",
        (error: unknown) => error,
      ),
      15_000,
      waited,
    );
    expect(fifoHasReader(recipesDir), "a reader left on the recipes directory's FIFO").toBe(false);
    expect(fifoHasReader(pipe), "a reader left on the FIFO recipe").toBe(false);
    expect(direct === "waited 15 s" ? direct : failure(direct).code).toBe("symlink_refused");
    expect(loaded).toMatchObject({ code: "invalid_recipe" });
    expect(await readdir(other)).toEqual(["pipe.yaml"]);
  }, 40_000);
});
