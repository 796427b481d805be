/**
 * Review (round 20): `ls`, `glob` and `grep` quoted a name holding a control character, but
 * printed as they were names holding NEL (U+0085), the line and paragraph separators (U+2028,
 * U+2029), which many consumers split lines on, and bidirectional overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069), which display `m‮hs.txt` as another name. Such names are now
 * printed as JSON strings with those characters escaped as `\uXXXX` (no raw one left on the
 * line); plain names, and other non-ASCII names, print as they are (control).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools, createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { okText } from "../support/call-results.js";
import { capability } from "../support/capabilities.js";

const ODD = [
  "x\u2028fake.txt",
  "p\u2029q.txt",
  "m\u0085n.txt",
  "m\u202ehs.txt",
  "e\u202aa.txt",
  "i\u2066j\u2069.txt",
  "k\u2067l\u2068.txt",
];
const PLAIN = ["plain.txt", "caf\u00e9.txt", "\u65e5\u672c.txt", "dash\u2014ok.txt"];
const RAW = /[\u0085\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** What the model sees for an odd name: a JSON string, every odd character as `\uXXXX`. */
function escaped(text: string): string {
  return JSON.stringify(text).replace(
    new RegExp(RAW.source, "g"),
    (found) => `\\u${found.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-listed-breaks-"));
  for (const name of [...ODD, ...PLAIN]) await writeFile(path.join(workspace, name), "needle\n");
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const ripgrep = capability("ripgrep");

for (const sandbox of ["workspace", "unrestricted"] as const) {
  describe(`${sandbox}: names holding line separators or bidirectional controls are quoted`, () => {
    const run = () =>
      createRegistry({ tools: createFileTools({}) }).createRun({
        profile: "full",
        permissions: { sandbox, workspace },
      });

    it("ls", async () => {
      const output = okText(await run().call("ls", {}));
      expect(output).not.toMatch(RAW);
      for (const name of ODD) expect(output).toContain(`${escaped(name)}  7`);
      for (const name of PLAIN) expect(output.split("\n")).toContain(`${name}  7`);
    });

    it("glob", async () => {
      const output = okText(await run().call("glob", { pattern: "*" }));
      expect(output).not.toMatch(RAW);
      const lines = output.split("\n");
      for (const name of ODD) expect(lines).toContain(escaped(name));
      for (const name of PLAIN) expect(lines).toContain(name);
      // Every quoted line reads back as its file.
      for (const name of ODD) expect(JSON.parse(escaped(name))).toBe(name);
    });
  });
}

const engines = ripgrep.missing ? (["javascript"] as const) : (["javascript", "ripgrep"] as const);
for (const engine of engines) {
  it(`grep (${engine}) quotes them too`, async () => {
    const output = okText(
      await createRegistry({ tools: [createGrepTool({ engine })] })
        .createRun({ profile: "full", permissions: { workspace, sandbox: "unrestricted" } })
        .call("grep", { pattern: "needle" }),
    );
    expect(output).not.toMatch(RAW);
    const lines = output.split("\n");
    for (const name of ODD) expect(lines).toContain(`${escaped(name)}:1:needle`);
    for (const name of PLAIN) expect(lines).toContain(`${name}:1:needle`);
  });
}
