import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asciiWordSpans, forEachAsciiWord, hashWord, WordTable } from "./ascii-words.js";
import { SearchIndex } from "./search-index.js";
import { rawWords, tokenize } from "./tokenize.js";

function scanned(text: string): string[] {
  const words: string[] = [];
  forEachAsciiWord(text, (start, end, hash) => {
    const word = text.slice(start, end).toLowerCase();
    // The hash is the lower-cased word's: the word table finds words by it.
    expect(hash).toBe(hashWord(word));
    words.push(word);
  });
  return words;
}

/** ASCII text made of the characters where word splitting is decided: cases, digits, separators. */
const asciiText = fc
  .array(fc.constantFrom(..."aAbBzZ09eE _-./:\tXyHTTPServer"), { maxLength: 40 })
  .map((characters) => characters.join(""));

/**
 * ASCII text whose stems tokenize back to themselves: only there is a description indexed from
 * its stems joined by spaces an oracle for the terms tokenize gives. Porter is not idempotent:
 * "aree" stems to "are", a stop word, so its stems' text has no term at all (a pinned seed used
 * to avoid such strings; fast-check found this one on another seed).
 */
const restemmedAlike = asciiText.filter((text) => {
  const stems = tokenize(text);
  return tokenize(stems.join(" ")).join(" ") === stems.join(" ");
});

describe("forEachAsciiWord", () => {
  it("splits words exactly as tokenize does (the regular-expression path)", () => {
    expect(scanned("HTTPServer v2Api get_user-id.ts readFILE x")).toEqual(rawWords("HTTPServer v2Api get_user-id.ts readFILE x"));
    fc.assert(
      fc.property(asciiText, (text) => {
        expect(scanned(text)).toEqual(rawWords(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses exactly the texts tokenize reads on its Unicode path (outside printable ASCII, tab, LF, CR)", () => {
    const unicodePath = /[^\u0020-\u007e\t\n\r]/;
    const character = fc.oneof(
      fc.constantFrom(..."aZ09 _-\t\n\r~\u007f\u0000\u001f\u0080é\u00a0中\ud83d"),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 30 }), (characters) => {
        const text = characters.join("");
        const words = asciiWordSpans(text, new Int32Array(3 * text.length));
        expect(words < 0).toBe(unicodePath.test(text));
        if (words >= 0) expect(scanned(text)).toEqual(rawWords(text));
      }),
      { numRuns: 3000 },
    );
    // Positive control: plain ASCII with tabs and line breaks is scanned.
    expect(asciiWordSpans("a\tb\r\nc~", new Int32Array(30))).toBe(3);
    expect(asciiWordSpans("caf\u00e9", new Int32Array(12))).toBe(-1);
  });

  it("splits a text scanned piece by piece (a small span buffer) exactly as in one piece", () => {
    fc.assert(
      fc.property(asciiText, fc.integer({ min: 1, max: 4 }), (text, room) => {
        const words: string[] = [];
        const ascii = forEachAsciiWord(
          text,
          (start, end) => words.push(text.slice(start, end).toLowerCase()),
          new Int32Array(3 * room),
        );
        expect(ascii).toBe(true);
        expect(words).toEqual(rawWords(text));
      }),
      { numRuns: 2000 },
    );
    // A long text with one non-ASCII character at its end is refused before any word is visited.
    let visited = 0;
    expect(forEachAsciiWord(`${"readFile ".repeat(100)}caf\u00e9`, () => visited++, new Int32Array(6))).toBe(false);
    expect(visited).toBe(0);
  });

  it("indexes texts longer than one span buffer as tokenize reads them (ASCII and not)", () => {
    const words = ["readFile", "HTTPServer", "v2Api", "get_user-id", "the", "Search", "queryDB", "x"];
    // 5,000 words joined by spaces and underscores: several span buffers' worth (1,024 words each).
    const long = Array.from({ length: 5000 }, (_, i) => `${words[(i * 7) % words.length]}${i % 3 === 0 ? " " : "_"}`).join("");
    // And one with no separator at all, each word once: every piece ends inside a camel-case run.
    const letters = (i: number) => String.fromCharCode(97 + (i % 26), 97 + (Math.floor(i / 26) % 26));
    const distinct = Array.from({ length: 3000 }, (_, i) => `Q${letters(i)}${letters(Math.floor(i / 676))}`);
    const camel = distinct.join("");
    const texts = [long, `${long} caf\u00e9 na\u00efve`, `${long}ThenCamelCaseAtTheEnd`, camel];
    const raw = new SearchIndex();
    const pre = new SearchIndex();
    texts.forEach((description, i) => {
      raw.set({ name: `t${i}`, description });
      pre.set({ name: `t${i}`, description: tokenize(description).join(" ") });
    });
    for (const query of ["read file", "http server", "query db", "cafe naive", "camel case end", "v2 api user id"])
      expect(raw.search(query, 5), query).toEqual(pre.search(query, 5));
    expect(raw.search("cafe", 5).map((hit) => hit.name)).toEqual(["t1"]);
    for (const word of distinct) expect(raw.search(word, 5), word).toEqual(pre.search(word, 5));
  });

  it("gives the index the terms tokenize gives: same scores as a document indexed from tokenized text", () => {
    fc.assert(
      fc.property(fc.array(restemmedAlike, { minLength: 2, maxLength: 8 }), asciiText, (descriptions, query) => {
        // The same descriptions indexed raw and pre-tokenized (stems joined by spaces) score the same.
        const raw = new SearchIndex();
        const pre = new SearchIndex();
        descriptions.forEach((description, i) => {
          raw.set({ name: `t${i}`, description });
          pre.set({ name: `t${i}`, description: tokenize(description).join(" ") });
        });
        const words = tokenize(query).join(" ");
        expect(raw.search(words, 5)).toEqual(pre.search(words, 5));
      }),
      { numRuns: 300 },
    );
  });

  it("finds a word by the span of any text it occurs in, whatever its case, and forgets all at its limit", () => {
    const table = new WordTable(3);
    const spans: [string, number, number][] = [];
    forEachAsciiWord("readFile HTTPServer", (start, end) => spans.push(["readFile HTTPServer", start, end]));
    for (const [i, word] of ["read", "file", "http"].entries()) table.set(word, hashWord(word), i);
    expect(
      spans.map(([text, start, end]) => table.get(text, start, end, hashWord(text.slice(start, end).toLowerCase()))),
    ).toEqual([0, 1, 2, undefined]);
    // Same hash, other word: compared by characters.
    expect(table.get("reed", 0, 4, hashWord("read"))).toBeUndefined();
    table.set("server", hashWord("server"), 3);
    expect(table.get("read", 0, 4, hashWord("read"))).toBeUndefined();
    expect(table.get("SERVER", 0, 6, hashWord("server"))).toBe(3);
  });

  it("keeps every word when the table grows past its first size", () => {
    const table = new WordTable();
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
    for (const [i, word] of words.entries()) table.set(word, hashWord(word), i);
    expect(words.every((word, i) => table.get(word, 0, word.length, hashWord(word)) === i)).toBe(true);
  });

  it("agrees with a Map through growth, negative values (stop words), replaced values and its limit", () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,6}$/);
    const operation = fc.oneof(
      fc.record({ set: word, value: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) }),
      fc.record({ replace: word, value: fc.integer({ min: -5000, max: 5000 }) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 1500 }), fc.integer({ min: 1, max: 2000 }), (operations, limit) => {
        const table = new WordTable(limit);
        let model = new Map<string, number>();
        for (const op of operations) {
          if ("set" in op) {
            if (model.has(op.set)) continue;
            if (model.size >= limit) model = new Map();
            table.set(op.set, hashWord(op.set), op.value);
            model.set(op.set, op.value);
          } else {
            const found = table.get(op.replace.toUpperCase(), 0, op.replace.length, hashWord(op.replace));
            expect(found).toBe(model.get(op.replace));
            if (found !== undefined) {
              table.replaceFound(op.value);
              model.set(op.replace, op.value);
            }
          }
        }
        for (const [w, value] of model) expect(table.get(w, 0, w.length, hashWord(w))).toBe(value);
      }),
      { numRuns: 200 },
    );
  });
});
