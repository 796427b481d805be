import { spawn } from "node:child_process";

/**
 * Runs `start` once a mover script (directory-mover.mjs, made-directory-mover.mjs), spawned as
 * `node <args>`, has said "watching"; stops the mover when `start` settles and waits for it to
 * exit. Returns `start`'s result, the mover's last line ("moved" when it acted) and all it said. The stop is a
 * SIGTERM, which each mover handles on its event loop (stop-on-terminate.mjs): a mover that is
 * moving finishes its synchronous move and says "moved" first, so a test never sees a directory
 * moved without the line that says so (a SIGKILL could land between the rename and the line).
 */
export async function whileMoving<T>(
  args: readonly string[],
  start: () => Promise<T>,
): Promise<{ result: T; said: string; output: string }> {
  const moving = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "ignore"] });
  let said = "";
  const ready = new Promise<void>((resolve) => {
    moving.stdout.on("data", (chunk) => {
      said += String(chunk);
      if (said.includes("watching")) resolve();
    });
  });
  const ended = new Promise((resolve) => moving.once("exit", resolve));
  await ready;
  const result = await start().finally(() => moving.kill("SIGTERM"));
  await ended;
  return { result, said: said.trim().split("\n").at(-1) ?? "", output: said.trim() };
}
