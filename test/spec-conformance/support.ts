import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isModelErrorCode, type ToolCallErrorInfo, type ToolCallResult } from "agent-tool-catalog";
import type { AgentRunner, WebFetcher } from "agent-tool-catalog/host";
import { expect } from "vitest";

/** The output of a successful call; fails the test with the error otherwise. */
export function ok(result: ToolCallResult): unknown {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.output;
}

/** The text output of a successful call. */
export function okText(result: ToolCallResult): string {
  const value = ok(result);
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The error of a failed call, checked to be one a model can act on: a code from the one list
 * (`MODEL_ERROR_CODES`), a non-empty message, and, for `invalid_input`, an issue naming `field`.
 */
export function modelError(result: ToolCallResult, code: string, field?: string): ToolCallErrorInfo {
  if (result.ok) throw new Error(`expected ${code}, got success: ${JSON.stringify(result.output)}`);
  const { error } = result;
  expect(error.code, JSON.stringify(error)).toBe(code);
  expect(isModelErrorCode(error.code), `${error.code} is not in MODEL_ERROR_CODES`).toBe(true);
  expect(error.message.trim().length).toBeGreaterThan(0);
  if (field !== undefined) {
    expect(
      error.issues?.map((issue) => issue.path),
      JSON.stringify(error),
    ).toContain(field);
  }
  return error;
}

/** An agent runner that answers "ok" at once (enables the agent tools without a model). */
export const okRunner: AgentRunner = { runPrompt: async () => ({ output: "ok" }) };

/** A web fetcher that answers every URL with an empty page (enables the web tools offline). */
export const emptyPageFetcher: WebFetcher = {
  fetch: async ({ url }) => ({ url, status: 200, contentType: "text/plain", text: "", bytes: 0, truncated: false }),
};

/**
 * Runs `script` as CommonJS in a fresh node, where `require("agent-tool-catalog/...")` resolves
 * the built package through its own `exports` (as a user's `require` does), and returns what the
 * script printed with `console.log(JSON.stringify(...))`. Needs `npm run build` first.
 */
export function runCommonJs(script: string): unknown {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
  expect(existsSync(join(root, "dist", "index.cjs")), "run `npm run build` first").toBe(true);
  const output = execFileSync(process.execPath, ["-e", script], { cwd: root, encoding: "utf8", timeout: 60_000 });
  return JSON.parse(output);
}

/** Scripts for {@link runCommonJs} run in one node: each registered, then each answer read. */
export interface CommonJsBatch {
  /** Registers `script` (while the file's tests are collected); the getter runs the batch at its first use. */
  script(script: string): () => unknown;
}

/**
 * {@link runCommonJs} for several scripts in one fresh node, started once (each start with the
 * package's entries costs about 0.4 s of CPU): every script runs as its own function with the
 * node's `require` and a `console` whose `log` gives its answer, as a script of its own would
 * print it. Register every script before the first answer is read (at collection, next to its test).
 */
export function commonJsBatch(): CommonJsBatch {
  const scripts: string[] = [];
  let answers: { output?: string; error?: string }[] | undefined;
  const program = `
    const scripts = JSON.parse(process.argv[1]);
    const answers = scripts.map((body) => new Promise((resolve) => {
      const console = { log: (text) => resolve({ output: String(text) }) };
      try { new Function("require", "console", body)(require, console); }
      catch (error) { resolve({ error: String(error && error.stack ? error.stack : error) }); }
    }));
    Promise.all(answers).then((all) => process.stdout.write(JSON.stringify(all)));`;
  return {
    script(script) {
      const index = scripts.push(script) - 1;
      return () => {
        if (answers === undefined) {
          const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
          expect(existsSync(join(root, "dist", "index.cjs")), "run `npm run build` first").toBe(true);
          const output = execFileSync(process.execPath, ["-e", program, JSON.stringify(scripts)], {
            cwd: root,
            encoding: "utf8",
            timeout: 60_000,
          });
          answers = JSON.parse(output) as { output?: string; error?: string }[];
        }
        const answer = answers[index];
        if (answer?.output === undefined) throw new Error(`CommonJS script ${index} failed: ${answer?.error ?? "no answer"}`);
        return JSON.parse(answer.output);
      };
    },
  };
}
