import { nodeUtilTypes } from "./node-util-types.js";

/** `util.types.isProxy`; without it every object is left to `JSON.stringify`. */
const isProxy = nodeUtilTypes?.isProxy;

/** Nesting beyond which the copy is left to `JSON.stringify` (whose depth error names the nesting). */
const MAX_DEPTH = 64;

/** Returned inside the walk for anything that is not plain JSON data read without side effects. */
const NOT_PLAIN = Symbol("not plain");

/** Control characters `JSON.stringify` writes as six characters (`\u0001`); rare, left to it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const LONG_ESCAPES = /[\u0000-\u0007\u000b\u000e-\u001f]/;

/** The characters `JSON.stringify` writes as two (`\"`, `\\`, `\n`...). */
const SHORT_ESCAPES = ['"', "\\", "\b", "\t", "\n", "\f", "\r"];

function occurrences(text: string, character: string): number {
  let count = 0;
  for (let at = text.indexOf(character); at !== -1; at = text.indexOf(character, at + 1)) count++;
  return count;
}

/**
 * Whether `text` is written by `JSON.stringify` with at most one extra character per character
 * (no lone surrogate, no control character written as `\uXXXX`): native scans, no string built.
 */
function shortlyEscaped(text: string): boolean {
  // `isWellFormed` is native on every Node this package runs on (20.16+); typed here since the
  // TypeScript library targeted is ES2023.
  const native = text as string & { isWellFormed?: () => boolean };
  return typeof native.isWellFormed === "function" && native.isWellFormed() && !LONG_ESCAPES.test(text);
}

/** The exact JSON length of `text` quoted, when {@link shortlyEscaped}: one more per escaped character. */
function quotedLength(text: string): number {
  let length = text.length + 2;
  for (const character of SHORT_ESCAPES) length += occurrences(text, character);
  return length;
}

/** Lengths gathered by the walk: the exact JSON length of everything but strings, and the strings to measure. */
interface Measure {
  fixed: number;
  readonly strings: string[];
}

function copyValue(value: unknown, depth: number, measure: Measure): unknown {
  switch (typeof value) {
    case "string":
      measure.strings.push(value);
      return value;
    case "number":
      if (!Number.isFinite(value)) return NOT_PLAIN;
      // `JSON.stringify` writes a finite number as `String` does (`-0` as `0`, which parses back as `0`).
      measure.fixed += String(value).length;
      return value === 0 ? 0 : value;
    case "boolean":
      measure.fixed += value ? 4 : 5;
      return value;
    case "object":
      if (value === null) {
        measure.fixed += 4;
        return null;
      }
      // A proxy answers its traps as it likes: JSON.stringify reads it as before.
      if (depth >= MAX_DEPTH || isProxy === undefined || isProxy(value)) return NOT_PLAIN;
      return Array.isArray(value) ? copyArray(value, depth, measure) : copyObject(value, depth, measure);
    default:
      return NOT_PLAIN;
  }
}

function copyArray(array: unknown[], depth: number, measure: Measure): unknown {
  if (Object.getPrototypeOf(array) !== Array.prototype) return NOT_PLAIN;
  const copy: unknown[] = [];
  measure.fixed += 2 + Math.max(array.length - 1, 0);
  for (let index = 0; index < array.length; index++) {
    // A descriptor, not a read: no getter runs; a hole or an accessor is left to JSON.stringify.
    const own = Object.getOwnPropertyDescriptor(array, index);
    if (own === undefined || !("value" in own)) return NOT_PLAIN;
    const item = copyValue(own.value, depth + 1, measure);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    copy.push(item);
  }
  return copy;
}

function copyObject(object: object, depth: number, measure: Measure): unknown {
  const prototype = Object.getPrototypeOf(object);
  if ((prototype !== Object.prototype && prototype !== null) || "toJSON" in object) return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  const descriptors = Object.getOwnPropertyDescriptors(object);
  let entries = 0;
  for (const key of Object.keys(descriptors)) {
    const own = descriptors[key] as PropertyDescriptor;
    if (!own.enumerable) continue;
    if (!("value" in own)) return NOT_PLAIN;
    const item = copyValue(own.value, depth + 1, measure);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    measure.strings.push(key);
    measure.fixed += 1;
    entries++;
    // `JSON.parse` makes `__proto__` an own property; an assignment would set the prototype.
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: item, writable: true, enumerable: true, configurable: true });
    else copy[key] = item;
  }
  measure.fixed += 2 + Math.max(entries - 1, 0);
  return copy;
}

/**
 * `JSON.parse(JSON.stringify(value))` for plain JSON data, without turning it into text: strings
 * are immutable, so the copy shares them (a 2 MB patch argument cost 10-130 ms of text built and
 * parsed back, and its garbage). Returns the copy when every object is a plain object or array
 * (no proxy, getter, hole, `toJSON`, prototype of its own), every value a string, finite number,
 * boolean or null, nested at most 64 deep, and its JSON is at most `maxLength` characters;
 * `undefined` otherwise (then `JSON.stringify` decides, as before, what the copy or the error is).
 * Reads descriptors only, so no getter runs.
 */
export function copyPlainJson(value: unknown, maxLength: number): { readonly value: unknown } | undefined {
  const measure: Measure = { fixed: 0, strings: [] };
  const copy = copyValue(value, 0, measure);
  if (copy === NOT_PLAIN) return undefined;
  // Each string's JSON is at most twice its length plus quotes; counted exactly only when that
  // bound is over the limit.
  let bound = measure.fixed;
  for (const text of measure.strings) {
    if (!shortlyEscaped(text)) return undefined;
    bound += 2 * text.length + 2;
  }
  if (bound > maxLength) {
    let length = measure.fixed;
    for (const text of measure.strings) length += quotedLength(text);
    if (length > maxLength) return undefined;
  }
  return { value: copy };
}
