import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { countOf } from "../../errors/count-of.js";
import type { SandboxedCommand } from "./process-sandbox.js";
import { SandboxViolationError } from "./sandbox-violation-error.js";
import { isInsideDirectory } from "./workspace-root.js";

const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Linux's MAX_ARG_STRLEN (32 pages of 4 KiB) less the terminating NUL: `execve` refuses any single
 * argument or environment string longer than this with E2BIG. A model's command is one argument
 * (`bash -c <command>`), and a tool that caps it in characters lets 100,000 three-byte characters
 * through as 300,000 bytes, which used to surface as `tool_failed` "spawn E2BIG".
 */
const MAX_ARGUMENT_BYTES = 32 * 4096 - 1;

/**
 * Checks the shape of a command before any driver turns it into an argv. Values may come from a
 * model through a tool, so a bad one is a readable refusal, not a crash or a confused launcher.
 * @throws SandboxViolationError `invalid_command`.
 */
export function assertValidCommand(request: SandboxedCommand): void {
  if (typeof request !== "object" || request === null) refuse("the command must be an object");
  if (!isCleanString(request.command) || request.command === "") refuse("`command` must be a non-empty string without NUL");
  if (!Array.isArray(request.args) || !request.args.every(isCleanString)) {
    refuse("`args` must be an array of strings without NUL");
  }
  for (const argument of [request.command, ...request.args]) {
    const bytes = Buffer.byteLength(argument, "utf8");
    if (bytes > MAX_ARGUMENT_BYTES) {
      refuse(
        `one argument is ${countOf(bytes, "byte")} in UTF-8 and the system runs at most ${MAX_ARGUMENT_BYTES} bytes per argument; ` +
          "write a long script to a file in the workspace and run the file",
      );
    }
  }
  if (!isCleanString(request.cwd) || request.cwd === "") refuse("`cwd` must be a non-empty path");
  for (const [name, value] of Object.entries(request.env ?? {})) {
    if (!ENVIRONMENT_NAME.test(name)) refuse(`environment variable name ${JSON.stringify(name)} is not valid`);
    if (!isCleanString(value)) refuse(`environment variable ${name} must be a string without NUL`);
    if (Buffer.byteLength(name, "utf8") + 1 + Buffer.byteLength(value, "utf8") > MAX_ARGUMENT_BYTES) {
      refuse(`environment variable ${name} is longer than the system runs (${MAX_ARGUMENT_BYTES} bytes with its name)`);
    }
  }
  if (request.stdin !== undefined && request.stdin !== "pipe" && request.stdin !== "ignore") {
    refuse('`stdin` must be "pipe" or "ignore"');
  }
}

/**
 * The real path of a working directory that must lie in `root` (a real path); relative paths are
 * taken from the workspace.
 * @throws SandboxViolationError `path_outside_workspace`, or `invalid_command` when it is missing.
 */
export function confineWorkingDirectory(root: string, cwd: string): string {
  const requested = path.resolve(root, cwd);
  // Spelled outside: refused before it is looked at, so the answer says nothing about the outside
  // (whether it exists, where a link such as /proc/self/cwd leads).
  if (!isInsideDirectory(root, requested)) throw outsideWorkspace(root, cwd);
  let real: string;
  try {
    real = realpathSync(requested);
  } catch {
    refuse(`the working directory ${JSON.stringify(cwd)} does not exist`);
  }
  if (!isInsideDirectory(root, real)) throw outsideWorkspace(root, cwd);
  if (!statSync(real).isDirectory()) refuse(`the working directory ${JSON.stringify(cwd)} is not a directory`);
  return real;
}

/**
 * The real path of a working directory anywhere on the host (scopes `"local"` and
 * `"unrestricted"`), so a missing one is reported as such rather than as a missing launcher.
 * Relative paths are taken from `base` (the workspace, when there is one).
 * @throws SandboxViolationError `invalid_command` when it does not exist or is not a directory.
 */
export function existingWorkingDirectory(cwd: string, base: string = process.cwd()): string {
  let real: string;
  try {
    real = realpathSync(path.resolve(base, cwd));
  } catch {
    refuse(`the working directory ${JSON.stringify(cwd)} does not exist`);
  }
  if (!statSync(real).isDirectory()) refuse(`the working directory ${JSON.stringify(cwd)} is not a directory`);
  return real;
}

function outsideWorkspace(root: string, cwd: string): SandboxViolationError {
  return new SandboxViolationError(
    "path_outside_workspace",
    `Refused to run in ${JSON.stringify(cwd)}: it is outside the workspace ${root} (or a link in it leads out).`,
    { data: { path: cwd, workspace: root }, hint: `Run commands in ${root} or below it.` },
  );
}

function isCleanString(value: unknown): value is string {
  return typeof value === "string" && !value.includes("\0");
}

function refuse(problem: string): never {
  throw new SandboxViolationError("invalid_command", `Refused to run the command: ${problem}.`, { data: { problem } });
}
