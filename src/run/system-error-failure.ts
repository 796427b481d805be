// What the model reads when a handler lets a Node system error about the machine's resources
// escape (a full disk, a read-only mount, no descriptors left): the condition, as the code the
// file tools give for it, instead of `tool_failed` with Node's text (which names host paths,
// `/proc/self/fd/N/.<name>.<uuid>.tmp`, and says nothing the model can act on).
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";

interface Condition {
  readonly code: "no_space" | "read_only_file_system" | "too_many_open_files";
  readonly words: string;
  readonly hint: string;
}

/**
 * Only conditions of the machine, never of the call's input: `ENOENT` or `EACCES` from a handler
 * may be its own business and keep `tool_failed` with the handler's text.
 */
const CONDITIONS: Readonly<Record<string, Condition>> = {
  ENOSPC: { code: "no_space", words: "no space left on the device", hint: "Ask the user to free disk space, then try again." },
  EDQUOT: { code: "no_space", words: "the disk quota is exceeded", hint: "Ask the user to free disk space, then try again." },
  EROFS: {
    code: "read_only_file_system",
    words: "the file system is read-only",
    hint: "Retrying will not help; ask the user to make the location writable.",
  },
  EMFILE: {
    code: "too_many_open_files",
    words: "the process has too many open files",
    hint: "Try again in a moment, with fewer calls at once.",
  },
  ENFILE: {
    code: "too_many_open_files",
    words: "the system has too many open files",
    hint: "Try again in a moment, with fewer calls at once.",
  },
};

/** Reads a property without letting a throwing getter or a proxy trap escape. */
function safeGet(value: unknown, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * The error for a Node system error (`code` and `syscall` set, as `fs` and `child_process` set
 * them) whose code is a condition of the machine; `undefined` for anything else.
 */
export function systemErrorFailure(name: string, error: unknown): ToolCallErrorInfo | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = safeGet(error, "code");
  const syscall = safeGet(error, "syscall");
  if (typeof code !== "string" || typeof syscall !== "string" || !Object.hasOwn(CONDITIONS, code)) return undefined;
  const condition = CONDITIONS[code] as Condition;
  // The system call's name only (`open`, `write`, `spawn bash`): never the path it was given.
  const call = /^[a-z_ ]{1,40}$/.test(syscall) ? `, ${syscall}` : "";
  return {
    code: condition.code,
    message: `The tool "${name}" failed: ${condition.words} (${code}${call}).`,
    hint: condition.hint,
  };
}
