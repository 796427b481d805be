import { type Author, FixtureRepository } from "./git-fixture.js";

/** The fixture's authors: four people, so contributor rankings have ties to break. */
export const ALICE: Author = { name: "Alice Able", email: "alice@example.com" };
export const BOB: Author = { name: "Bob Baker", email: "bob@example.com" };
export const CAROL: Author = { name: "Carol Cole", email: "carol@example.com" };
export const DAVE: Author = { name: "Dave Dune", email: "dave@example.com" };

/** The commits of {@link buildHistoryFixture}, by role. */
export interface HistoryFixture {
  readonly directory: string;
  readonly commits: Readonly<
    Record<"initial" | "needle" | "parser" | "tweak" | "dropNeedle" | "merge" | "rename" | "move" | "docs" | "remove", string>
  >;
}

const appLines = (overrides: Readonly<Record<number, string>> = {}, insertAfter3?: string): string => {
  const lines = Array.from(
    { length: 12 },
    (_, index) => overrides[index + 1] ?? `export const value${index + 1} = ${index + 1};`,
  );
  if (insertAfter3 !== undefined) lines.splice(3, 0, insertAfter3);
  return `${lines.join("\n")}\n`;
};

const PARSER = [
  "export function parse(input: string) {",
  "  const needle = input.indexOf('needle');",
  "  return needle;",
  "}",
  "",
  "export const again = 'needle';",
];

/** The first logo contains the bytes "needle"; the second does not (pickaxe counts inside binary files, like git). */
const LOGO_ONE = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]), Buffer.from("needle"), Buffer.from([0, 9])]);
const LOGO_TWO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 4, 5, 6, 0, 7]);

/**
 * A small history with every case the git tools must get right: a side branch merged with a
 * merge commit, a pure rename, a rename with edits, a binary file that changes, a deleted file,
 * a lightweight tag (v1) and an annotated one (v2), four authors and two time zones, a file
 * without a final newline and a submodule entry. Both
 * branches add the line "shared" to notes.txt and the merge keeps the side branch's file, so
 * blame must give the line to the side branch (git passes all lines to a parent with the same blob).
 */
export function buildHistoryFixture(prefix = "history"): HistoryFixture {
  const repository = FixtureRepository.create(prefix);
  repository
    .write("src/app.ts", appLines())
    .write("README.md", "# Demo\n\nA demo project.\n")
    .write("assets/logo.png", LOGO_ONE)
    .write("docs/guide.md", "# Guide\n\nStart here.\n")
    .write("docs/old.txt", "obsolete\n")
    .write("notes.txt", "one\n");
  const initial = repository.commit("Initial import", ALICE);
  repository.write("src/app.ts", appLines({ 8: "export const value8 = 80;" }, "const needle = 1;"));
  const needle = repository.commit("Add needle handling\n\nThe needle is looked up once.", BOB);
  repository.git("checkout", "-q", "-b", "feature");
  repository
    .write("src/parser.ts", `${PARSER.join("\n")}\n`)
    .write("README.md", "# Demo\n\nA demo project.\nNow with a parser.\n");
  const parser = repository.commit("feature: add parser", CAROL);
  repository.git("checkout", "-q", "main");
  repository.write(
    "src/app.ts",
    appLines({ 8: "export const value8 = 80;", 11: "export const value11 = 110;" }, "const needle = 1;"),
  );
  repository.write("assets/logo.png", LOGO_TWO).write("notes.txt", "one\nshared\n");
  const tweak = repository.commit("Tweak app and logo", ALICE);
  repository.git("tag", "v1");
  repository.git("checkout", "-q", "feature");
  repository.write("src/parser.ts", `${PARSER.slice(0, 5).join("\n")}\n`).write("notes.txt", "one\nshared\nfeature only\n");
  const dropNeedle = repository.commit("feature: drop one needle", CAROL);
  repository.git("checkout", "-q", "main");
  const merge = repository.merge("feature", "Merge branch 'feature'", BOB);
  repository.move("src/app.ts", "src/main.ts");
  const rename = repository.commit("Rename app.ts to main.ts", ALICE);
  repository.move("src/parser.ts", "lib/parser.ts");
  repository.write("lib/parser.ts", `${PARSER.slice(0, 5).join("\n")}\nexport const version = 2;\n`);
  repository.write(
    "src/main.ts",
    appLines(
      { 1: "export const value1 = 100;", 8: "export const value8 = 80;", 11: "export const value11 = 110;" },
      "const needle = 1;",
    ),
  );
  const move = repository.commit("Move parser to lib and extend it", BOB);
  repository.git("tag", "-a", "v2", "-m", "Version 2");
  repository.write("docs/guide.md", "# Guide\n\nStart here.\nThen read the code.");
  repository.remove("docs/old.txt");
  const docs = repository.commit("Fix NEEDLE typo in docs", DAVE, "-0500");
  repository.write(
    "src/main.ts",
    appLines({ 1: "export const value1 = 100;", 8: "export const value8 = 80;", 11: "export const value11 = 110;" }),
  );
  const remove = repository.commit("Remove needle from main", CAROL);
  // A submodule entry (gitlink) without a checkout: diffs show it as "Subproject commit <id>".
  repository.git("update-index", "--add", "--cacheinfo", `160000,${initial},vendor/lib`);
  repository.commitIndex("Vendor lib as a submodule", DAVE);
  return {
    directory: repository.directory,
    commits: { initial, needle, parser, tweak, dropNeedle, merge, rename, move, docs, remove },
  };
}
