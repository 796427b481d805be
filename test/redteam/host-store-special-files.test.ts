import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, mkdtemp, open, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DirectoryPromptExtensionStore, DirectorySkillStore, ProfileDirectory, RecipeDirectory } from "agent-tool-catalog/host";
import { afterEach, describe, expect, it } from "vitest";

// Red team: a host data directory (profiles, skills, recipes, prompt extensions) holding an entry
// that is not a regular file. A FIFO made every listing wait forever (and pinned a libuv thread
// per read); a directory named like a data file took the whole listing down with EISDIR.

const directories: string[] = [];
const fifos: string[] = [];

afterEach(async () => {
  // Old code: release reads still blocked on a FIFO (a writer that opens and closes gives EOF).
  for (const fifo of fifos.splice(0)) {
    await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
      (handle) => handle.close(),
      () => undefined,
    );
  }
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), "redteam-host-files-"));
  directories.push(directory);
  return directory;
}

function mkfifo(file: string): void {
  execFileSync("mkfifo", [file]);
  fifos.push(file);
}

/** Fails instead of hanging: the old code never settled. */
function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("host data directories with entries that are not regular files", () => {
  it("profiles: a FIFO and a directory are broken profiles; the good one is listed; the FIFO can be deleted", async () => {
    const directory = await scratch();
    mkfifo(path.join(directory, "pipe.toml"));
    await mkdir(path.join(directory, "folder.toml"));
    await writeFile(path.join(directory, "good.toml"), 'description = "a good profile"\n');
    const profiles = new ProfileDirectory(directory);

    const listed = await within(profiles.list());
    expect(listed.profiles.map((profile) => profile.name)).toEqual(["good"]);
    expect(listed.broken).toEqual([
      { name: "folder", issues: [{ field: "(file)", message: "it is a directory, not a regular file" }] },
      { name: "pipe", issues: [{ field: "(file)", message: "it is a named pipe (FIFO), not a regular file" }] },
    ]);
    expect(await within(profiles.read("pipe"))).toMatchObject({ ok: false });
    expect(await within(profiles.delete("pipe"))).toBe(true);
    expect((await readdir(directory)).sort()).toEqual(["folder.toml", "good.toml"]);
  });

  it("skills: a SKILL.md that is a FIFO is a broken skill (invalid_skill), the good one is listed", async () => {
    const directory = await scratch();
    await mkdir(path.join(directory, "pipe"));
    mkfifo(path.join(directory, "pipe", "SKILL.md"));
    await mkdir(path.join(directory, "good"));
    await writeFile(
      path.join(directory, "good", "SKILL.md"),
      "---\nname: good\ndescription: A good skill.\n---\n\nDo it well.\n",
    );
    const store = new DirectorySkillStore(directory);

    const listed = await within(store.list());
    expect(listed.skills.map((skill) => skill.name)).toEqual(["good"]);
    expect(listed.broken).toEqual([{ name: "pipe", error: "pipe/SKILL.md: it is a named pipe (FIFO), not a regular file." }]);
    await expect(within(store.get("pipe"))).rejects.toMatchObject({ code: "invalid_skill" });
  });

  it("prompt extensions: a FIFO and a directory are skipped like files that do not parse", async () => {
    const directory = await scratch();
    await mkdir(path.join(directory, "behaviors", "folder.md"), { recursive: true });
    mkfifo(path.join(directory, "behaviors", "pipe.md"));
    await writeFile(path.join(directory, "behaviors", "tests.md"), "---\ndescription: Run the tests.\n---\n\nRun them.\n");
    const listed = await within(new DirectoryPromptExtensionStore(directory).list());
    expect(listed.map((extension) => extension.name)).toEqual(["tests"]);
  });

  it("recipes: loading a FIFO recipe is invalid_recipe at once; a regular one loads", async () => {
    const directory = await scratch();
    mkfifo(path.join(directory, "pipe.yaml"));
    await writeFile(path.join(directory, "good.yaml"), "description: A good recipe.\nsteps:\n  - tool: read\n    args: {}\n");
    const recipes = new RecipeDirectory(directory);
    await expect(within(recipes.load("pipe"))).rejects.toMatchObject({ code: "invalid_recipe" });
    expect((await within(recipes.load("good"))).name).toBe("good");
  });

  it("an oversized profile file is a broken profile, not read whole", async () => {
    const directory = await scratch();
    await writeFile(path.join(directory, "huge.toml"), `description = "${"x".repeat(5 * 1024 * 1024)}"\n`);
    const listed = await within(new ProfileDirectory(directory).list());
    expect(listed.profiles).toEqual([]);
    expect(listed.broken[0]?.issues[0]?.message).toMatch(/over the limit of 4194304 bytes/);
  });
});
