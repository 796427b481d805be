/**
 * A separate process that writes one profile over and over through ProfileDirectory (atomic
 * writes), for the kill -9 test. Prints "ready" after its first write; with "create" it makes one
 * exclusive create and prints "created" or the error code, then exits.
 * Usage: profile-writer.ts <directory> <name> <writer id> [create]
 */
import { ProfileDirectory } from "agent-tool-catalog/host";

const [directory = "", name = "", writer = "", mode] = process.argv.slice(2);
const profiles = new ProfileDirectory(directory);
const instructions = `Instructions of writer ${writer}. ${"x".repeat(40_000)}`;

if (mode === "create") {
  try {
    await profiles.create({ name, description: `created by ${writer}`, instructions });
    process.stdout.write("created\n");
  } catch (error) {
    process.stdout.write(`${(error as { code?: string }).code ?? String(error)}\n`);
  }
} else {
  for (let round = 0; ; round++) {
    await profiles.replace({ name, description: `writer ${writer} round ${round}`, instructions });
    if (round === 0) process.stdout.write("ready\n");
  }
}
