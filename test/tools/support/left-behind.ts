/**
 * What a file change left in a workspace for a recovery: the temporary files anywhere in it, and
 * the entries of its intent logs (which name the temporary files a recovery removes).
 */
import { readdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { intentDirectory } from "../../../src/tools/fs/intent-log.js";

/** The temporary files anywhere in `workspace`, and the entries of its intent logs. */
export async function leftBehind(
  workspace: string,
): Promise<{ temporaries: string[]; logged: { temporary?: string; restore?: string }[] }> {
  const temporaries = (await readdir(workspace, { recursive: true })).filter((entry) => /\.atc-[0-9a-f]+\.tmp$/.test(entry));
  const logs = intentDirectory(await realpath(workspace));
  const names = (await readdir(logs).catch(() => [] as string[])).filter((name) => name.endsWith(".json"));
  const logged = (
    await Promise.all(names.map(async (name) => JSON.parse(await readFile(path.join(logs, name), "utf8")).entries))
  ).flat();
  return { temporaries, logged };
}
