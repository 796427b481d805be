/**
 * A separate process that writes one profile over and over through ProfileDirectory (atomic
 * writes), for the kill -9 test. Prints "ready" after its first write; with "create" it makes one
 * exclusive create and prints "created" or the error code, then exits.
 * Usage: profile-writer.mjs <directory> <name> <writer id> [create]
 * Plain JavaScript loading the public entry (test/support/load-entry.mjs): with a current build it
 * starts as plain node on dist/, not under tsx on src/ (about 1 s of CPU less per writer).
 */
import { loadEntry } from "../../support/load-entry.mjs";

const { ProfileDirectory } = await loadEntry("host/index");
const [directory = "", name = "", writer = "", mode] = process.argv.slice(2);
const profiles = new ProfileDirectory(directory);
const instructions = `Instructions of writer ${writer}. ${"x".repeat(40_000)}`;

if (mode === "create") {
  try {
    await profiles.create({ name, description: `created by ${writer}`, instructions });
    process.stdout.write("created\n");
  } catch (error) {
    process.stdout.write(`${error?.code ?? String(error)}\n`);
  }
} else {
  for (let round = 0; ; round++) {
    await profiles.replace({ name, description: `writer ${writer} round ${round}`, instructions });
    if (round === 0) process.stdout.write("ready\n");
  }
}
