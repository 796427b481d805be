import type { CallOverheadResult } from "./call-overhead.js";
import type { SearchQualityResult } from "./search/search-quality.js";
import type { SearchSpeedResult } from "./search/search-speed.js";
import type { TokenFootprintResult } from "./tokens/token-footprint.js";
import type { GrepBenchResult } from "./tools/grep-bench.js";
import type { PatchBenchResult } from "./tools/patch-bench.js";

/** Everything `npm run bench` measured, as written to bench/results/. */
export interface BenchResults {
  readonly machine: { readonly node: string; readonly cpus: number; readonly cpuModel: string; readonly date: string };
  readonly searchQuality?: readonly SearchQualityResult[];
  readonly searchSpeed?: readonly SearchSpeedResult[];
  /** The 1/5/15-minute load average when the search speed was measured. */
  readonly searchSpeedLoad?: readonly number[];
  readonly callOverhead?: CallOverheadResult;
  readonly tokenFootprint?: readonly TokenFootprintResult[];
  readonly grep?: GrepBenchResult;
  readonly applyPatch?: PatchBenchResult;
  /** Further sections (git, tokens, tools), each already rendered as Markdown. */
  readonly extraMarkdown?: readonly string[];
}

const fixed = (value: number, digits = 3) => value.toFixed(digits);

function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Renders the results as the Markdown the README includes. */
export function renderSummary(results: BenchResults): string {
  const parts = [
    `Measured by \`npm run bench\` on ${results.machine.date}, Node ${results.machine.node}, ${results.machine.cpus} × ${results.machine.cpuModel}. Raw numbers: \`bench/results/*.json\`.`,
  ];
  if (results.searchQuality !== undefined) {
    const shown = results.searchQuality.filter((result) => result.kind !== "variant");
    parts.push(
      '**find_tool search quality**: plain BM25, the default ranker and the hybrid (0.7 × cosine of the shipped USE-lite embedder + 0.3 × the normalised score of the default ranker) on every data set. The MCP reference servers set (72 real tools, 90 queries, `bench/data/mcp-servers`) and MetaTool (199 tools) are where parameters were chosen (field weights on the first; k1, length normalisation and the related-word weight on the mean of all three); the held-out MCP set (138 tools of 14 other servers, 191 queries written blind to the ranker, `bench/data/mcp-heldout`) is reported only, and so is the blind held-out set 2 (240 tools of 12 further servers, 250 queries committed before any ranker ran on them, `bench/data/mcp-heldout-2`), on which nothing has been chosen. "zero-overlap" is recall@10 over the gold tools that share no content word with the query (their share in brackets). Every configuration tried: `bench/results/search-quality.json`.',
      table(
        ["data set", "method", "recall@1", "recall@5", "recall@10", "nDCG@10", "all gold in top 10", "zero-overlap recall@10"],
        shown.map((result) => [
          `${result.dataset} (${result.queries} queries)`,
          result.kind === "baseline" ? "plain BM25" : result.kind === "default" ? "default ranker (BM25F)" : "hybrid",
          fixed(result.metrics.recallAt1),
          fixed(result.metrics.recallAt5),
          fixed(result.metrics.recallAt10),
          fixed(result.metrics.ndcgAt10),
          fixed(result.metrics.allGoldInTop10),
          `${fixed(result.zeroOverlapRecallAt10)} (${Math.round(result.zeroOverlapShare * 100)}%)`,
        ]),
      ),
    );
  }
  if (results.searchSpeed !== undefined) {
    const words = results.searchSpeed[0]?.queryWords ?? [1, 40];
    parts.push(
      `**Search speed and in-place updates** (synthetic MCP-like catalogs; ${results.searchSpeed[0]?.queries ?? 0} queries of ${words[0]}-${words[1]} words from the data sets above; one process, machine shared with other jobs${results.searchSpeedLoad === undefined ? "" : `, load average ${results.searchSpeedLoad.map((value) => value.toFixed(1)).join(" / ")} on ${results.machine.cpus} cores`}):`,
      table(
        [
          "tools",
          "register (ms)",
          "index build (ms)",
          "add one (µs)",
          "update one (µs)",
          "remove one (µs)",
          "50 × (register + search) (ms)",
          "query p50 (ms)",
          "query p99 (ms)",
          "query p99, best of 3 per query (ms)",
          "index heap per tool (bytes)",
        ],
        results.searchSpeed.map((r) => [
          r.tools,
          r.registerMs,
          r.indexBuildMs,
          r.addMicros,
          r.updateMicros,
          r.removeMicros,
          r.interleaved50Ms,
          fixed(r.queryP50Ms, 4),
          fixed(r.queryP99Ms, 4),
          r.queryP99BestOf3Ms === undefined ? "n/a" : fixed(r.queryP99BestOf3Ms, 4),
          r.heapBytesPerTool ?? "n/a",
        ]),
      ),
    );
  }
  if (results.callOverhead !== undefined) {
    const c = results.callOverhead;
    parts.push(
      `**Per-call overhead** of \`run.call()\` on a trivial zod tool: ${fixed(c.overheadMicros)} µs (${fixed(c.overheadWithListenersMicros)} µs with a listener on every event), against ${fixed(c.directMicros)} µs for calling the handler directly; median of batches of ${c.calls} calls.`,
    );
  }
  if (results.tokenFootprint !== undefined) {
    parts.push(
      "**First-request token footprint** of the tool definitions (o200k_base tokens; built-in file tools + MetaTool tools + synthetic MCP-like tools): eager sends every schema; deferred is the default run (essential tools, find_tool, toolbox with its index of the other built-ins); listing names every non-essential tool in the system-prompt index:",
      table(
        ["tools", "eager", "deferred", "cut", "listing", "cut", "find_tool recall@5"],
        results.tokenFootprint.map((r) => [
          r.tools,
          r.eagerTokens,
          r.deferredTokens,
          `${(r.deferredCut * 100).toFixed(1)}%`,
          r.listingTokens,
          `${(r.listingCut * 100).toFixed(1)}%`,
          fixed(r.findToolRecallAt5),
        ]),
      ),
    );
  }
  if (results.grep !== undefined) {
    const g = results.grep;
    parts.push(
      `**grep tool vs ripgrep** (${g.rgVersion ?? "rg not installed: tool times only"}) on node_modules/zod (${g.files} files), through \`run.call\` as a model would call it; median times:`,
      table(
        ["pattern", "matching lines (tool / rg)", "tool (ms)", "rg (ms)", "tool / rg"],
        g.cases.map((c) => [
          `\`${c.pattern.replaceAll("|", "\\|")}\``,
          `${c.matches} / ${c.rgMatches ?? "n/a"}`,
          c.toolMs,
          c.rgMs ?? "n/a",
          c.ratio ?? "n/a",
        ]),
      ),
    );
  }
  if (results.applyPatch !== undefined) {
    const p = results.applyPatch;
    parts.push(
      `**apply_patch on a ${(p.fileBytes / 1e6).toFixed(2)} MB file** (${p.lines} lines, ${p.hunks} hunks, through \`run.call\`: plan, atomic write, journal): unified diff ${p.unifiedMs} ms, Codex patch ${p.codexMs} ms; GNU patch on the same diff ${p.gnuPatchMs ?? "n/a"} ms (ratio ${p.ratio ?? "n/a"}, same result: ${p.sameResult ?? "n/a"}).`,
    );
  }
  parts.push(...(results.extraMarkdown ?? []));
  return parts.join("\n\n");
}
