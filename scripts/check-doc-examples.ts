/**
 * Type-checks the TSDoc `@example` blocks of the public API (`npm run docs:check`, part of
 * `npm test`). Each ```ts block under an `@example` tag in src/ becomes a module that imports every
 * export of every subpath (so a snippet uses them as a reader would) over a prelude declaring the
 * free names snippets lean on (`run`, `registry`, `model`, `anthropic`, `openai`, ...), and the lot
 * is checked with the project's compiler options. Blocks known to fail are listed, with the
 * reason, in scripts/doc-examples/known-failures.json: a listed block that passes, or an unlisted
 * block that fails, fails the check.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { subpaths } from "./subpaths.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = path.join(root, ".doc-examples");
const knownFailuresFile = path.join(root, "scripts/doc-examples/known-failures.json");
const prelude = readFileSync(path.join(root, "scripts/doc-examples/prelude.d.ts"), "utf8");

/**
 * Names whose type depends on the API a snippet shows (a conversation is Anthropic's or OpenAI's),
 * declared in the snippets of one folder unless the snippet declares them itself.
 */
const LOCAL_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "src/adapters/ai-sdk/": { messages: "import('ai').ModelMessage[]" },
  "src/adapters/anthropic/": {
    messages: "import('@anthropic-ai/sdk').default.Messages.MessageParam[]",
    response: "import('@anthropic-ai/sdk').default.Messages.Message",
  },
  "src/adapters/openai/": {
    messages: "import('openai').default.Chat.Completions.ChatCompletionMessageParam[]",
    completion: "import('openai').default.Chat.Completions.ChatCompletion",
    input: "import('openai').default.Responses.ResponseInputItem[]",
    response: "import('openai').default.Responses.Response",
  },
};

function localDeclarations(example: Example): string {
  const lines: string[] = [];
  for (const [folder, names] of Object.entries(LOCAL_NAMES)) {
    if (!example.file.startsWith(folder)) continue;
    for (const [name, type] of Object.entries(names)) {
      const declared = new RegExp(`\\b(const|let|var)\\s+(${name}\\b|\\{[^}]*\\b${name}\\b)`).test(example.code);
      if (!declared) lines.push(`declare const ${name}: ${type};`);
    }
  }
  return lines.join(" ");
}

interface Example {
  /** Where it is: `src/...ts:<line of the opening fence>`. */
  readonly id: string;
  readonly file: string;
  /** The line of the first code line in the source file, 1-based. */
  readonly line: number;
  readonly code: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts") ? [full] : [];
  });
}

function examplesOf(file: string): Example[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const examples: Example[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!/^\s*\*\s*@example\b/.test(lines[index] ?? "")) continue;
    let fence = index + 1;
    while (fence < lines.length && !/^\s*\*\s*```(ts|typescript)\s*$/.test(lines[fence] ?? "")) {
      if (/^\s*\*\/|^\s*\*\s*@/.test(lines[fence] ?? "")) break;
      fence++;
    }
    if (!/```(ts|typescript)/.test(lines[fence] ?? "")) continue;
    const code: string[] = [];
    let end = fence + 1;
    for (; end < lines.length && !/^\s*\*\s*```\s*$/.test(lines[end] ?? ""); end++)
      code.push((lines[end] ?? "").replace(/^\s*\* ?/, ""));
    const relative = path.relative(root, file).split(path.sep).join("/");
    examples.push({ id: `${relative}:${fence + 1}`, file: relative, line: fence + 2, code: code.join("\n") });
    index = end;
  }
  return examples;
}

/**
 * The compiler options of the examples' check (the project's, with .doc-examples/tsconfig.json's
 * changes) and the files that config includes.
 */
function examplesConfig(configFile: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (parsed === undefined) throw new Error(`docs:check: cannot read ${configFile}`);
  return parsed;
}

/**
 * A compiler host whose parsed files outlive a program: the examples' program takes the library's
 * sources and their dependencies' declarations (about 1,100 files) as the exports' program parsed
 * and bound them, rather than reading and parsing them all again. `oldProgram` did not do that:
 * the two programs' root files differ, so TypeScript reused nothing from it. Both programs have
 * the same options, so a file is parsed (and bound) the same way for either.
 */
function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const parsed = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
    const version =
      typeof languageVersionOrOptions === "object"
        ? `${languageVersionOrOptions.languageVersion}:${languageVersionOrOptions.impliedNodeFormat}`
        : `${languageVersionOrOptions}`;
    const key = `${version}:${fileName}`;
    if (!shouldCreate && parsed.has(key)) return parsed.get(key);
    const file = getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreate);
    parsed.set(key, file);
    return file;
  };
  return host;
}

/**
 * Every export of every subpath, each name once (the first subpath exporting it wins), read by a
 * program over the subpaths' sources alone.
 */
function publicImports(options: ts.CompilerOptions, host: ts.CompilerHost): string {
  const entries = subpaths();
  const program = ts.createProgram({ rootNames: entries.map((entry) => path.join(root, entry.source)), options, host });
  const checker = program.getTypeChecker();
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const entry of entries) {
    const source = program.getSourceFile(path.join(root, entry.source));
    const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (symbol === undefined) continue;
    const names = checker
      .getExportsOfModule(symbol)
      .map((item) => item.getName())
      .filter((name) => name !== "default" && !seen.has(name));
    for (const name of names) seen.add(name);
    if (names.length > 0) lines.push(`import { ${names.join(", ")} } from "${entry.specifier}";`);
  }
  return lines.join("\n");
}

/**
 * The examples' type errors, one per line as `tsc --pretty false` prints them. Only the example
 * files (and the prelude) are checked: the library's own sources are `npm run typecheck`'s, and
 * checking them again here cost a second whole-project check (36 of the step's CPU seconds). The
 * examples still see every declaration they use, which the checker resolves on demand.
 */
function checkExamples(parsed: ts.ParsedCommandLine, exampleNames: readonly string[], host: ts.CompilerHost): string {
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host });
  const checked = new Set([...exampleNames, "prelude.d.ts"].map((name) => path.join(out, name)));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSourceFiles().flatMap((file) => {
      if (!checked.has(path.normalize(file.fileName))) return [];
      return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    }),
  ];
  return diagnostics
    .map((diagnostic) => {
      const message = `error TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
      if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
      const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      const relative = path.relative(root, diagnostic.file.fileName).split(path.sep).join("/");
      return `${relative}(${line + 1},${character + 1}): ${message}`;
    })
    .join("\n");
}

function main(): void {
  const examples = sourceFiles(path.join(root, "src")).flatMap(examplesOf);
  const known = JSON.parse(readFileSync(knownFailuresFile, "utf8")) as Record<string, string>;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // The config first: the exports' program is made with the examples' options, so that the
  // examples' program can take its files as they are.
  writeFileSync(
    path.join(out, "tsconfig.json"),
    JSON.stringify({
      extends: "../tsconfig.json",
      compilerOptions: { verbatimModuleSyntax: false, isolatedModules: false, noUnusedLocals: false, noUnusedParameters: false },
      include: ["./*.ts"],
    }),
  );
  const config = examplesConfig(path.join(out, "tsconfig.json"));
  const host = cachingHost(config.options);
  const imports = publicImports(config.options, host);
  const header = `${imports}\nexport {};\n`;
  // Local declarations go on the header's last line, so line numbers stay those of the header.
  const headerLines = header.split("\n").length - 1;
  const byFile = new Map<string, Example>();
  examples.forEach((example, index) => {
    const name = `example-${index}.ts`;
    byFile.set(name, example);
    // Snippets' own imports go first; the public names are there already.
    const own = example.code.split("\n").filter((line) => /^import\s/.test(line));
    const body = example.code
      .split("\n")
      .map((line) => (/^import\s/.test(line) ? "" : line))
      .join("\n");
    // Names the snippet imports itself are left out of the public imports (no duplicates).
    const ownNames = new Set(
      own.flatMap((line) =>
        (/\{([^}]*)\}/.exec(line)?.[1] ?? "").split(",").map(
          (item) =>
            item
              .replace(/^\s*type\s+/, "")
              .trim()
              .split(/\s+as\s+/)
              .pop() ?? "",
        ),
      ),
    );
    const publicHeader = header.replace(/import \{ ([^}]*) \} from/g, (_all, list: string) => {
      const kept = list.split(", ").filter((item) => !ownNames.has(item));
      return kept.length === 0 ? "import {} from" : `import { ${kept.join(", ")} } from`;
    });
    const head = `${own.join(" ")} ${localDeclarations(example)}`.trim();
    writeFileSync(path.join(out, name), `${publicHeader.slice(0, -1)} ${head}\n${body}\n`);
  });
  writeFileSync(path.join(out, "prelude.d.ts"), prelude);
  // The config lists its files when parsed: read it again now that the examples are written.
  const examplesFiles = { ...config, fileNames: examplesConfig(path.join(out, "tsconfig.json")).fileNames };
  const output = checkExamples(examplesFiles, [...byFile.keys()], host);
  const failures = new Map<string, string[]>();
  for (const line of output.split("\n")) {
    const match = /^\.doc-examples\/(example-\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
    const example = match === null ? undefined : byFile.get(match[1] as string);
    if (match === null || example === undefined) {
      // An error outside the snippets (the prelude, the imports) is the check's own fault.
      if (/error TS\d+/.test(line)) {
        console.error(`docs:check setup error: ${line}`);
        process.exitCode = 1;
      }
      continue;
    }
    const at = `${example.file}:${example.line + Number(match[2]) - 1 - headerLines}`;
    failures.set(example.id, [...(failures.get(example.id) ?? []), `${at}: ${match[4]}`]);
  }
  rmSync(out, { recursive: true, force: true });
  let bad = 0;
  for (const [id, messages] of failures) {
    if (Object.hasOwn(known, id)) continue;
    bad++;
    console.error(`@example at ${id} does not type-check:\n  ${messages.join("\n  ")}`);
  }
  for (const id of Object.keys(known)) {
    if (!failures.has(id)) {
      bad++;
      console.error(`${id} is listed in known-failures.json but type-checks (or is gone): remove it from the list.`);
    }
  }
  const listed = Object.keys(known).length;
  console.log(
    `\ndocs:check: ${examples.length} @example blocks, ${examples.length - failures.size} type-check, ${listed} known failures listed.`,
  );
  if (bad > 0) process.exitCode = 1;
}

main();
