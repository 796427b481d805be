/**
 * A full coding agent's catalog in one call: `createDefaultCatalog` assembles the file tools,
 * bash, monitor, the deferred groups whose dependencies are given, find_tool and the run policy.
 * It prints which groups are present (and which are absent, silently, because their dependency
 * is missing), the tools a core-profile run sends eagerly, and its `# Additional tools` index.
 * Run it with `npx tsx examples/coding-agent.ts`; with a model (any AI SDK `LanguageModel`), the
 * agent, swarm and agentic fetch tools appear too.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createAiSdkAgentRunner } from "agent-tool-catalog/ai-sdk";
import { createDefaultCatalog, type DefaultCatalog } from "agent-tool-catalog/catalog";
import {
  HttpWebFetcher,
  InMemoryQuestionBroker,
  InMemoryTranscriptStore,
  recordRunTranscript,
  workspaceSkillsDirectory,
} from "agent-tool-catalog/host";
import type { LanguageModel } from "ai";

/** Builds the catalog for `workspace` and prints what it shows. */
export function main(
  log: (line: string) => void = console.log,
  options: { readonly workspace?: string; readonly model?: LanguageModel } = {},
): DefaultCatalog {
  const workspace = options.workspace ?? mkdtempSync(path.join(tmpdir(), "coding-agent-"));
  const transcripts = new InMemoryTranscriptStore();
  let catalog: DefaultCatalog | undefined;
  const agentRunner =
    options.model === undefined
      ? undefined
      : // Child agents run on the same catalog; their runs are children of the asking run's scope.
        createAiSdkAgentRunner({ model: options.model, registry: () => (catalog as DefaultCatalog).registry });
  // readme:start
  catalog = createDefaultCatalog({
    workspace,
    permissions: { sandbox: "workspace", approval: "destructive" },
    skillsDir: workspaceSkillsDirectory(workspace, "myagent"),
    webFetcher: new HttpWebFetcher(),
    questionBroker: new InMemoryQuestionBroker(),
    transcriptStore: transcripts,
    ...(agentRunner === undefined ? {} : { agentRunner }),
  });
  const run = catalog.createRun({ profile: "core" }); // sandboxed, approvals for writes
  recordRunTranscript(run, transcripts); // session_search finds its calls later
  // readme:end

  for (const group of catalog.groups) {
    log(`${group.present ? "+" : "-"} ${group.name}${group.present ? `: ${group.tools.join(", ")}` : " (absent)"}`);
  }
  log(
    `eager tools: ${run
      .definitions()
      .map((tool) => tool.name)
      .join(", ")}`,
  );
  log(run.systemPromptIndex() ?? "(no index)");
  return catalog;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main();
}
