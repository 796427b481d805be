/**
 * `glob` and `ls` print one entry per line. A name holding a line break printed as two entries,
 * neither of which exists (`n⏎l.txt` listed `n` and `l.txt`), and a name could pass for the note a
 * listing adds for an unreadable directory, or (ls) for its layout: indentation, the gap before a
 * size. Such names are now printed as JSON strings, as grep prints them; plain names (and a
 * Next.js-style `[id].tsx`) print as they are, and every printed entry reads back as its file.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { okText } from "../support/call-results.js";

const ODD = [
  "n\nl.txt",
  "tab\there.txt",
  '"quoted.txt',
  "[not read: secret (EACCES: permission denied); its entries are missing here]",
  " leading.txt",
  "gap  12",
];
const PLAIN = ["plain.txt", "[id].tsx", 'in"side.txt', "one space.txt"];

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-listed-names-"));
  await mkdir(path.join(workspace, "sub"));
  for (const name of [...ODD, ...PLAIN]) await writeFile(path.join(workspace, "sub", name), `${name}\n`);
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const decoded = (line: string) => (line.startsWith('"') ? (JSON.parse(line) as string) : line);

for (const sandbox of ["workspace", "unrestricted"] as const) {
  describe(`${sandbox}: listed names are one-to-one with file names`, () => {
    const runOf = (): Run =>
      createRegistry({ tools: createFileTools({}) }).createRun({ profile: "full", permissions: { sandbox, workspace } });

    it("glob: one line per file, each reading back as that file; plain names as they are", async () => {
      const run = runOf();
      const lines = okText(await run.call("glob", { pattern: "sub/*" }))
        .split("\n")
        .slice(1);
      expect(lines).toHaveLength(ODD.length + PLAIN.length);
      const names = lines.map((line) => decoded(line).slice("sub/".length));
      expect(names.sort()).toEqual((await readdir(path.join(workspace, "sub"))).sort());
      for (const name of PLAIN) expect(lines).toContain(`sub/${name}`);
      // Under a directory only a control character is ambiguous (the line starts with "sub/").
      for (const name of ODD) expect(lines).toContain(/[\n\t]/.test(name) ? JSON.stringify(`sub/${name}`) : `sub/${name}`);
      for (const line of lines) {
        const name = decoded(line);
        expect(okText(await run.call("read", { path: name }))).toContain(name.split("/").at(-1)?.split("\n")[0]);
      }
    });

    it("glob at the top: a name that would pass for a quoted name or a note is quoted", async () => {
      const top = ['"top.txt', "[not read: top (EACCES: permission denied); its entries are missing here]"];
      for (const name of top) await writeFile(path.join(workspace, name), "x\n");
      try {
        const lines = okText(await runOf().call("glob", { pattern: "**" }))
          .split("\n")
          .slice(1);
        for (const name of top) expect(lines).toContain(JSON.stringify(name));
        // No line passes for a note, and every line reads back as a file.
        expect(lines.filter((line) => line.startsWith("[not "))).toEqual([]);
        expect(lines.map(decoded).sort()).toEqual([...top, ...[...ODD, ...PLAIN].map((name) => `sub/${name}`)].sort());
      } finally {
        for (const name of top) await rm(path.join(workspace, name));
      }
    });

    it("ls: one line per entry, each name with its size; plain names as they are", async () => {
      const run = runOf();
      const lines = okText(await run.call("ls", { path: "sub" }))
        .split("\n")
        .slice(1);
      expect(lines).toHaveLength(ODD.length + PLAIN.length);
      const entries = lines.map((line) => {
        const match = /^(.*) {2}(\d+)$/.exec(line);
        expect(match).not.toBeNull();
        return { name: decoded(match?.[1] as string), size: Number(match?.[2]) };
      });
      for (const { name, size } of entries) expect(size).toBe(Buffer.byteLength(`${name}\n`));
      expect(entries.map((entry) => entry.name).sort()).toEqual([...ODD, ...PLAIN].sort());
      for (const name of PLAIN) expect(lines).toContain(`${name}  ${Buffer.byteLength(`${name}\n`)}`);
    });
  });
}
