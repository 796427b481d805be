// The validator (Ajv) compiles a `$ref` target the first time it meets it, from inside the
// compilation of the schema that refers to it: a chain of references nests one compilation in the
// next. A ring of 300 definitions, each referring to the next, overflowed the stack on the first
// call (every call then failed with tool_failed) and 200 held the host's thread for a second.
// This bounds the deepest such nesting before the tool is registered.

/**
 * An upper bound of how deeply the validator's compilation of `root` can nest through `$ref`s:
 * the longest path from the root through the graph of local references, each group of schemas
 * that refer to each other in a cycle counted with all its members (a depth-first walk may visit
 * each of them once before it comes back). `resolve` finds a pointer's target (or `undefined`).
 * Only the first `limit + 1` matter: the walk stops counting there. Targets are told apart by
 * the schema object a pointer reaches (`#/propert%69es` is `#/properties`). Past `budget` nodes
 * visited under referenced targets (the root's own walk not counted; nested targets count again)
 * its depth is `Infinity`: this walk would be quadratic, and the validator's first compile too slow.
 */
export function refChainDepth(
  root: unknown,
  resolve: (pointer: string) => unknown,
  limit: number,
  budget: number,
): RefChainMeasure {
  const graph = referenceGraph(root, resolve, budget);
  if (graph === undefined) return { depth: Number.POSITIVE_INFINITY, refsIntoReferringTargets: Number.POSITIVE_INFINITY };
  const components = stronglyConnected(graph.edges);
  // Tarjan's algorithm emits each component after every component it reaches, so one pass in
  // emission order sees the depths it needs.
  const depthOf = new Map<number, number>();
  const componentOf = new Map<number, number>();
  components.forEach((members, index) => {
    for (const node of members) componentOf.set(node, index);
  });
  let deepest = 0;
  components.forEach((members, index) => {
    let below = 0;
    for (const node of members) {
      for (const next of graph.edges[node] ?? []) {
        const other = componentOf.get(next) as number;
        if (other !== index) below = Math.max(below, depthOf.get(other) ?? 0);
      }
    }
    const depth = Math.min(limit + 1, below + members.length);
    depthOf.set(index, depth);
    deepest = Math.max(deepest, depth);
  });
  let refsIntoReferringTargets = 0;
  for (const [target, count] of graph.occurrences) {
    if ((graph.edges[target]?.length ?? 0) > 0) refsIntoReferringTargets += count;
  }
  return { depth: deepest, refsIntoReferringTargets };
}

/** What {@link refChainDepth} measures. */
export interface RefChainMeasure {
  /** The deepest nesting (see {@link refChainDepth}); `Infinity` when the budget ran out. */
  readonly depth: number;
  /**
   * `$ref`s (occurrences) whose target itself holds `$ref`s: the validator cannot inline those
   * and compiles them at a cost of milliseconds each.
   */
  readonly refsIntoReferringTargets: number;
}

interface ReferenceGraph {
  /** Per node (0 is the root), the nodes its subtree refers to. */
  readonly edges: number[][];
  /** Per node, how many `$ref`s in the whole schema point to it. */
  readonly occurrences: Map<number, number>;
}

function referenceGraph(root: unknown, resolve: (pointer: string) => unknown, limit: number): ReferenceGraph | undefined {
  const byPointer = new Map<string, number>([["#/", 0]]);
  const byTarget = new Map<unknown, number>([[root, 0]]);
  const targets: unknown[] = [root];
  const edges: number[][] = [];
  const budget = { left: limit };
  const occurrences = new Map<number, number>();
  for (let node = 0; node < targets.length; node++) {
    const references = referencesIn(targets[node], node === 0 ? { left: Number.POSITIVE_INFINITY } : budget);
    if (references === undefined) return undefined;
    const out = new Set<number>();
    for (const reference of references) {
      const pointer = reference === "#" ? "#/" : reference;
      let id = byPointer.get(pointer);
      if (id === undefined) {
        const target = resolve(pointer);
        if (target === undefined) continue;
        id = byTarget.get(target);
        if (id === undefined) {
          id = targets.length;
          byTarget.set(target, id);
          targets.push(target);
        }
        byPointer.set(pointer, id);
      }
      out.add(id);
      // The root's walk meets every `$ref` of the schema exactly once.
      if (node === 0) occurrences.set(id, (occurrences.get(id) ?? 0) + 1);
    }
    edges.push([...out]);
  }
  return { edges, occurrences };
}

/**
 * Every local JSON-pointer `$ref` string in `schema`'s subtree (iterative: schemas may be deep), or
 * `undefined` once the shared budget of visited nodes is spent.
 */
function referencesIn(schema: unknown, budget: { left: number }): string[] | undefined {
  const found: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    if (--budget.left < 0) return undefined;
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref" && typeof child === "string") {
        if (child === "#" || child.startsWith("#/")) found.push(child);
      } else {
        stack.push(child);
      }
    }
  }
  return found;
}

/** Tarjan's strongly connected components, iteratively; each emitted after all it reaches. */
function stronglyConnected(edges: readonly (readonly number[])[]): number[][] {
  const state: TarjanState = {
    index: new Array<number>(edges.length).fill(-1),
    low: new Array<number>(edges.length).fill(0),
    onStack: new Array<boolean>(edges.length).fill(false),
    stack: [],
    components: [],
    counter: 0,
  };
  for (let start = 0; start < edges.length; start++) {
    if (state.index[start] === -1) walkFrom(start, edges, state);
  }
  return state.components;
}

interface TarjanState {
  readonly index: number[];
  readonly low: number[];
  readonly onStack: boolean[];
  readonly stack: number[];
  readonly components: number[][];
  counter: number;
}

function enter(node: number, state: TarjanState): void {
  state.index[node] = state.low[node] = state.counter++;
  state.stack.push(node);
  state.onStack[node] = true;
}

function walkFrom(start: number, edges: readonly (readonly number[])[], state: TarjanState): void {
  const { index, low, onStack } = state;
  const work: [node: number, edge: number][] = [[start, 0]];
  enter(start, state);
  while (work.length > 0) {
    const frame = work[work.length - 1] as [number, number];
    const [node, edge] = frame;
    const next = edges[node]?.[edge];
    if (next !== undefined) {
      frame[1] = edge + 1;
      if (index[next] === -1) {
        enter(next, state);
        work.push([next, 0]);
      } else if (onStack[next]) {
        low[node] = Math.min(low[node] as number, index[next] as number);
      }
      continue;
    }
    work.pop();
    const parent = work[work.length - 1];
    if (parent !== undefined) low[parent[0]] = Math.min(low[parent[0]] as number, low[node] as number);
    if (low[node] === index[node]) emitComponent(node, state);
  }
}

function emitComponent(root: number, state: TarjanState): void {
  const members: number[] = [];
  let member: number;
  do {
    member = state.stack.pop() as number;
    state.onStack[member] = false;
    members.push(member);
  } while (member !== root);
  state.components.push(members);
}
