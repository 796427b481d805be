/**
 * Every numeric option of the public factories, over values of the class that slipped through
 * (`createUseEmbedder({ batchSize: NaN })` embedded nothing, silently): NaN, ±Infinity, negative,
 * zero, fractions, huge numbers. Each value is either accepted by the option's documented rule or
 * refused at the factory with a `ConfigurationError` `invalid_option` naming the option.
 */
import { ConfigurationError, createRegistry, type Embedder, InMemoryRunStore, type RunState } from "agent-tool-catalog";
import { createRunRecipeTool } from "agent-tool-catalog/host";
import { createUseEmbedder } from "agent-tool-catalog/use-embedder";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

interface Rule {
  readonly min: number;
  readonly max?: number;
  readonly aboveMin?: boolean;
  readonly integer?: boolean;
  readonly infinite?: boolean;
}

function allowed(value: number, rule: Rule): boolean {
  if (Number.isNaN(value)) return false;
  if (value === Number.POSITIVE_INFINITY) return rule.infinite === true;
  if (!Number.isFinite(value)) return false;
  if (rule.integer === true && !Number.isSafeInteger(value)) return false;
  if (rule.aboveMin === true ? value <= rule.min : value < rule.min) return false;
  return rule.max === undefined || value <= rule.max;
}

const embedder = (overrides: Partial<Embedder>): Embedder => ({
  id: "fake",
  dimensions: 2,
  embed: async (texts) => texts.map(() => [1, 0]),
  ...overrides,
});

/** Option name, how the factory is given the value, and the rule its docs state. */
const OPTIONS: readonly [string, (value: number) => unknown, Rule][] = [
  ["batchSize", (batchSize) => createUseEmbedder({ batchSize }), { min: 1, integer: true, infinite: true }],
  [
    "embedder.batchSize",
    (batchSize) => createRegistry({ search: { embedder: embedder({ batchSize }) } }),
    { min: 1, integer: true, infinite: true },
  ],
  [
    "embedder.dimensions",
    (dimensions) => createRegistry({ search: { embedder: embedder({ dimensions }) } }),
    { min: 1, integer: true },
  ],
  ["semanticWeight", (semanticWeight) => createRegistry({ search: { semanticWeight } }), { min: 0, max: 1 }],
  // Infinity: every tool is a candidate of both halves (decided in stop 36; it was refused).
  ["candidates", (candidates) => createRegistry({ search: { candidates } }), { min: 1, integer: true, infinite: true }],
  ["k1", (k1) => createRegistry({ search: { k1 } }), { min: 0 }],
  ["typoWeight", (typoWeight) => createRegistry({ search: { typoWeight } }), { min: 0, max: 1 }],
  ["relatedWeight", (relatedWeight) => createRegistry({ search: { relatedWeight } }), { min: 0, max: 1 }],
  [
    "statisticsTolerance",
    (statisticsTolerance) => createRegistry({ search: { statisticsTolerance } }),
    { min: 0, infinite: true },
  ],
  [
    "fields.name.weight",
    (weight) => createRegistry({ search: { fields: { name: { weight, lengthNormalization: 0.5 } } } }),
    { min: 0 },
  ],
  [
    "fields.description.lengthNormalization",
    (lengthNormalization) => createRegistry({ search: { fields: { description: { weight: 1, lengthNormalization } } } }),
    { min: 0, max: 1 },
  ],
  ["indexInBackground", (indexInBackground) => createRegistry({ indexInBackground }), { min: 0, infinite: true }],
  [
    "maxStepOutputChars",
    (maxStepOutputChars) => createRunRecipeTool({ recipesDir: "/nonexistent", maxStepOutputChars }),
    { min: 0, integer: true, infinite: true },
  ],
  ["storeTtlMs", (storeTtlMs) => createRegistry().createRun({ storeTtlMs }), { min: 1, integer: true, infinite: true }],
  [
    "storeSaveWaitMs",
    (storeSaveWaitMs) => createRegistry().createRun({ storeSaveWaitMs }),
    { min: 1, max: 2 ** 31 - 1, integer: true },
  ],
  [
    "maxInputLength",
    (maxInputLength) => createRegistry().createRun({ maxInputLength }),
    { min: 0, aboveMin: true, infinite: true },
  ],
  [
    "condenseThreshold",
    (condenseThreshold) => createRegistry().createRun({ condenseThreshold }),
    { min: 0, aboveMin: true, infinite: true },
  ],
  [
    "maxBinaryBytes",
    (maxBinaryBytes) => createRegistry().createRun({ maxBinaryBytes }),
    { min: 0, aboveMin: true, infinite: true },
  ],
  [
    "maxCallsInFlight",
    (maxCallsInFlight) => createRegistry().createRun({ maxCallsInFlight }),
    { min: 0, aboveMin: true, infinite: true },
  ],
];

const numbers = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -0, -1, 0.5, 1, 1.5, 2, 2 ** 53, 1e308),
  fc.double(),
  fc.integer({ min: -1_000, max: 1_000_000 }),
);

describe("numeric options: accepted by their rule, else invalid_option naming the option", () => {
  for (const [field, give, rule] of OPTIONS) {
    it(field, () => {
      fc.assert(
        fc.property(numbers, (value) => {
          let thrown: unknown;
          try {
            give(value);
          } catch (error) {
            thrown = error;
          }
          if (allowed(value, rule)) expect(thrown).toBeUndefined();
          else {
            expect(thrown).toBeInstanceOf(ConfigurationError);
            expect(thrown).toMatchObject({ code: "invalid_option", data: { field } });
          }
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe("values that meant something before the checks are accepted with that meaning", () => {
  it("indexInBackground 0, storeTtlMs Infinity, maxStepOutputChars Infinity, batchSize Infinity", async () => {
    // 0 was clamped to a threshold of one change: every change is indexed in the background.
    expect(() => createRegistry({ indexInBackground: 0 })).not.toThrow();
    expect(() => createRunRecipeTool({ recipesDir: "/nonexistent", maxStepOutputChars: Number.POSITIVE_INFINITY })).not.toThrow();
    expect(() => createUseEmbedder({ batchSize: Number.POSITIVE_INFINITY })).not.toThrow();
    expect(() => createRegistry({ search: { embedder: embedder({ batchSize: Number.POSITIVE_INFINITY }) } })).not.toThrow();
    // Infinity: the in-memory store keeps the state (it never expires).
    const store = new InMemoryRunStore<RunState>();
    const registry = createRegistry();
    const run = registry.createRun({ store, storeTtlMs: Number.POSITIVE_INFINITY });
    expect(await run.save()).toBe(1);
    expect(await store.load(run.id)).toBeDefined();
    // Still refused: NaN and negative values.
    for (const bad of [Number.NaN, -1]) {
      expect(() => createRegistry({ indexInBackground: bad })).toThrow(ConfigurationError);
      expect(() => registry.createRun({ storeTtlMs: bad })).toThrow(ConfigurationError);
      expect(() => createRunRecipeTool({ recipesDir: "/nonexistent", maxStepOutputChars: bad })).toThrow(ConfigurationError);
    }
  });
});
