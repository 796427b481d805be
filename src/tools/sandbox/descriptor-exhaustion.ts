/**
 * True for Node's system error when the process (`EMFILE`) or the system (`ENFILE`) has no file
 * descriptor left: a spawn, a pipe, an open of a cgroup file. Callers pass such an error on as it
 * is (its `code` and `syscall` kept), so the run answers `too_many_open_files` for it, the code the
 * file tools give, instead of a message of their own under `tool_failed`.
 */
export function isDescriptorExhaustion(error: unknown): error is NodeJS.ErrnoException {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === "EMFILE" || code === "ENFILE";
}
