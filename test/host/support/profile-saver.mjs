/**
 * A separate process that saves one profile over and over through ProfileDirectory, for the host
 * store kill -9 test. Prints the round number after each acknowledged save; a save that fails
 * prints "error <code>" and exits 1 (a live writer whose temporary file another process removed
 * mid-save would fail its rename with ENOENT).
 * Usage: profile-saver.mjs <directory> <name>
 * Plain JavaScript loading the public `host` entry (test/support/load-entry.mjs): with a current
 * build it starts as plain node on dist/ (about 0.5 s of CPU), not under tsx on src/ (about 1.5 s).
 */
import { loadEntry } from "../../support/load-entry.mjs";

const { ProfileDirectory } = await loadEntry("host/index");
const [directory = "", name = ""] = process.argv.slice(2);
const profiles = new ProfileDirectory(directory);
const instructions = `Instructions. ${"x".repeat(40_000)}`;
for (let round = 0; ; round++) {
  try {
    await profiles.replace({ name, description: `round ${round}`, instructions });
  } catch (error) {
    process.stdout.write(`error ${error?.code ?? String(error)}\n`);
    process.exit(1);
  }
  process.stdout.write(`${round}\n`);
}
