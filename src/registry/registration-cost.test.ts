import { describe, expect, it } from "vitest";
import { defineTool } from "../tool/define-tool.js";
import type { AnyToolDefinition } from "../tool/tool-definition.js";
import { createRegistry, type Registry } from "./registry.js";

const VERBS = ["get", "list", "create", "update", "delete", "search", "send", "read"];
const NOUNS = ["issue", "file", "branch", "calendar", "event", "message", "page", "record", "user", "invoice"];

/** MCP-like deferred tools: shared words, and a unique number in each name (as real catalogs have ids). */
function catalog(count: number, prefix = "srv"): AnyToolDefinition[] {
  return Array.from({ length: count }, (_, i) =>
    defineTool({
      name: `${prefix}${i % 50}_${VERBS[i % 8]}_${NOUNS[i % 10]}_${i}`,
      description: `${VERBS[i % 8]} a ${NOUNS[(i * 3) % 10]} of the ${NOUNS[(i * 7) % 10]} service, item ${i}.`,
      tier: "deferred",
      tags: ["mcp", `mcp_server:${prefix}${i % 50}`],
      inputSchema: { type: "object", properties: { id: { type: "string", description: `The ${NOUNS[i % 10]} id` } } },
      handler: () => "",
    }),
  );
}

/** The registry's index work so far (search index and name trigrams); both are deterministic counters. */
function operations(registry: Registry): number {
  // Private members, read by element access: the counters are for tests, not the registry's API.
  // biome-ignore lint/complexity/useLiteralKeys: element access is how TypeScript lets a test read private members
  return registry["index"].keyword.operations + registry["names"].operations;
}

/**
 * Index work per tool: bulk load, a search, then a register loop with a search every 10 tools,
 * updates and removals. Searches refresh the BM25F statistics when they drifted: that work is
 * counted too (it is amortized: the averages drift by 1% only after about 1% more tools).
 */
function workPerTool(count: number): number {
  const registry = createRegistry({ tools: catalog(count) });
  registry.search("send a message");
  const late = catalog(count / 10, "late");
  const replaced = catalog(count / 10, "late").map((tool) => ({ ...tool, description: `${tool.description} Replaced.` }));
  const handles = late.map((tool, i) => {
    const handle = registry.register(tool);
    if (i % 10 === 0) registry.search("create an issue");
    return handle;
  });
  for (const [i, handle] of handles.entries()) {
    if (i % 3 === 0) handle.remove();
    else if (i % 3 === 1) handle.update(replaced[i] as AnyToolDefinition);
  }
  registry.search("list the branches");
  return operations(registry) / (count * 1.1);
}

/**
 * The best CPU time per tool (µs) of registering each catalog and searching it once (the index
 * built), in rounds that alternate the catalogs (the order too). CPU time of this process (all
 * its threads: garbage collection included), not wall time: under load from other processes a
 * long run is stretched by every time slice it waits for, while a short one often runs in one
 * slice, so wall time made the large catalog look slower per tool whenever the machine was busy.
 */
function registerMicrosPerTool(catalogs: readonly (readonly AnyToolDefinition[])[], rounds = 5): number[] {
  const best = catalogs.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < catalogs.length; k++) {
      const at = round % 2 === 0 ? k : catalogs.length - 1 - k;
      const tools = catalogs[at] as readonly AnyToolDefinition[];
      const started = process.cpuUsage();
      createRegistry({ tools }).search("send");
      const used = process.cpuUsage(started);
      best[at] = Math.min(best[at] as number, (used.user + used.system) / 1000);
    }
  }
  return best.map((ms, at) => (ms * 1000) / (catalogs[at] as readonly AnyToolDefinition[]).length);
}

describe("the search index is built on the first search (issue 18: a new process that calls a tool by name)", () => {
  it("does no index work at registration, and the first search finds registered, updated and not removed tools", () => {
    const registry = createRegistry({ tools: catalog(200) });
    const late = registry.register(catalog(1, "late")[0] as AnyToolDefinition);
    const gone = registry.register(catalog(1, "gone")[0] as AnyToolDefinition);
    late.update({ ...(catalog(1, "late")[0] as AnyToolDefinition), description: "Reconcile the quarterly ledger." });
    gone.remove();
    // biome-ignore lint/complexity/useLiteralKeys: element access is how TypeScript lets a test read private members
    expect(registry["index"].keyword.operations).toBe(0);
    expect(registry.search("quarterly ledger").map((hit) => hit.name)).toEqual(["late0_get_issue_0"]);
    expect(registry.search("gone0 get issue").map((hit) => hit.name)).not.toContain("gone0_get_issue_0");
    expect(registry.search("srv7 list record", { limit: 1 }).map((hit) => hit.name)).toEqual(["srv7_list_record_57"]);
    // Control: the search did the work.
    // biome-ignore lint/complexity/useLiteralKeys: as above
    expect(registry["index"].keyword.operations).toBeGreaterThan(0);
  });
});

describe("the queue of index changes stays bounded by the catalog when nobody searches", () => {
  it("applies the queue once it passes twice the tools registered, so churn without search does not grow memory", () => {
    const registry = createRegistry({ tools: catalog(100) });
    // biome-ignore lint/complexity/useLiteralKeys: element access is how TypeScript lets a test read private members
    const queued = () => registry["queuedIndexChanges"];
    const tool = catalog(1, "churn")[0] as AnyToolDefinition;
    let longest = 0;
    for (let i = 0; i < 20_000; i++) {
      registry.register(tool).remove();
      longest = Math.max(longest, queued());
    }
    expect(longest).toBeLessThanOrEqual(4097);
    // Control: before the bound is reached, registrations are only queued (no index work).
    const fresh = createRegistry({ tools: catalog(100) });
    // biome-ignore lint/complexity/useLiteralKeys: as above
    expect(fresh["queuedIndexChanges"]).toBeGreaterThanOrEqual(100);
    expect(registry.search("churn0 get issue").map((hit) => hit.name)).not.toContain("churn0_get_issue_0");
  });
});

describe("registering costs the same per tool at any registry size (issue 18)", () => {
  it("does index work proportional to the tools registered, changed and removed", () => {
    const small = workPerTool(2_000);
    const large = workPerTool(20_000);
    // Deterministic: a pass over the registry per registration would make this ratio about 10.
    expect(large / small).toBeLessThan(1.25);
    expect(large / small).toBeGreaterThan(0.8);
  }, 60_000);

  it("takes about the same time per tool for 15,000 tools as for 1,500", () => {
    createRegistry({ tools: catalog(500) }); // warm-up: compile the code paths first
    const [small, large] = registerMicrosPerTool([catalog(1_500), catalog(15_000)]) as [number, number];
    // Loose (garbage collection of a larger heap: 1.6-2.4x seen at load 12-16): superlinear would be ~10x.
    expect(large).toBeLessThan(small * 4);
  }, 120_000);
});

describe("the search index is built in the background, in slices (issue 18: the first find_tool blocked for seconds)", () => {
  /** Index changes still queued, and whether a background slice is scheduled (private, read by reflection). */
  const queued = (registry: Registry) => Reflect.get(registry, "queuedIndexChanges") as number;
  const keywordOperations = (registry: Registry) =>
    (Reflect.get(registry, "index") as { keyword: { operations: number } }).keyword.operations;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it("applies the queue between turns of the event loop, in several slices, and a search then finds it all done", async () => {
    const registry = createRegistry({ tools: catalog(3_000) });
    expect(queued(registry)).toBeGreaterThan(3_000);
    let turns = 0;
    const scheduled = () => Reflect.get(registry, "indexing") !== undefined;
    while ((queued(registry) > 0 || scheduled()) && turns < 10_000) {
      const left = queued(registry);
      await turn();
      // Each turn applied part of the queue, never all of 3,000 tools at once.
      if (turns === 0) expect(queued(registry)).toBeLessThan(left);
      turns++;
    }
    expect(queued(registry)).toBe(0);
    expect(scheduled()).toBe(false);
    // Several slices (a slice runs about 4 ms; 3,000 tools take far longer than one).
    expect(turns).toBeGreaterThan(3);
    const before = keywordOperations(registry);
    expect(registry.search("srv7 list record", { limit: 1 })[0]?.name).toMatch(/^srv7_list_record_/);
    // The search found nothing left to do: postings written and weights computed in the background.
    expect(before).toBeGreaterThan(0);
    expect(keywordOperations(registry)).toBe(before);
  }, 60_000);

  it("with indexInBackground: false, nothing is indexed between turns; prepareSearch() or the first search does it all", async () => {
    const registry = createRegistry({ tools: catalog(500), indexInBackground: false });
    await turn();
    await turn();
    expect(keywordOperations(registry)).toBe(0);
    expect(queued(registry)).toBeGreaterThan(500);
    registry.prepareSearch();
    expect(queued(registry)).toBe(0);
    expect(keywordOperations(registry)).toBeGreaterThan(0);
    expect(registry.search("srv7 list record", { limit: 1 })[0]?.name).toMatch(/^srv7_list_record_/);
  });

  it("a search while slices are still pending gives the exact results (it applies the rest first)", async () => {
    const tools = catalog(2_000);
    const background = createRegistry({ tools });
    const late = background.register(catalog(1, "late")[0] as AnyToolDefinition);
    await turn();
    late.update({ ...(catalog(1, "late")[0] as AnyToolDefinition), description: "Reconcile the quarterly ledger." });
    expect(queued(background)).toBeGreaterThan(0);
    const reference = createRegistry({ tools, indexInBackground: false });
    reference
      .register(catalog(1, "late")[0] as AnyToolDefinition)
      .update({ ...(catalog(1, "late")[0] as AnyToolDefinition), description: "Reconcile the quarterly ledger." });
    for (const query of ["quarterly ledger", "send a message", "srv3 create invoice", "delete the user record"])
      expect(background.search(query, { limit: 20 })).toEqual(reference.search(query, { limit: 20 }));
  });

  it("by default leaves a catalog under 2,000 queued changes to the first search; from there (or the option's count) it runs", async () => {
    const small = createRegistry({ tools: catalog(300) });
    await turn();
    await turn();
    // Never searched, never tokenized: a new process asking one question pays nothing for the index.
    expect(keywordOperations(small)).toBe(0);
    expect(queued(small)).toBeGreaterThan(300);
    expect(small.search("srv7 list record", { limit: 1 })[0]?.name).toMatch(/^srv7_list_record_/);
    // Controls: the same catalog with a threshold of 100 indexes in the background, and a large one by default.
    const eager = createRegistry({ tools: catalog(300), indexInBackground: 100 });
    const large = createRegistry({ tools: catalog(2_000) });
    for (let turns = 0; turns < 10_000 && (queued(eager) > 0 || queued(large) > 0); turns++) await turn();
    expect(queued(eager)).toBe(0);
    expect(queued(large)).toBe(0);
    expect(keywordOperations(eager)).toBeGreaterThan(0);
    await Promise.all([small.close(), eager.close(), large.close()]);
  }, 60_000);

  it("stops indexing when the registry is closed", async () => {
    const registry = createRegistry({ tools: catalog(2_000) });
    await registry.close();
    const left = queued(registry);
    await turn();
    await turn();
    expect(queued(registry)).toBe(left);
    expect(left).toBeGreaterThan(0);
  });
});
