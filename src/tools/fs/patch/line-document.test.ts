import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  countLines,
  type LineDocument,
  type LineReplacement,
  type OutputLine,
  parseLineDocument,
  renderLineDocument,
} from "./line-document.js";
import { PiecedBytes } from "./pieced-bytes.js";

/** Generated output lines: a `{ kept }` draws a number that {@link keptWithin} maps into the document. */
type DrawnLine = { text: string; ending: string | undefined } | { kept: number };

/** `lines` with each kept line's number taken modulo the document's `length` (dropped when it has none). */
function keptWithin(lines: readonly DrawnLine[], length: number): OutputLine[] {
  return lines.flatMap((line): OutputLine[] => ("kept" in line ? (length === 0 ? [] : [{ kept: line.kept % length }]) : [line]));
}

/** The rendering rule spelled out line by line: what the sliced rendering must equal. */
function renderLineByLine(document: LineDocument, replacements: readonly LineReplacement[], finalNewline: boolean): string {
  const output: { text: string; ending: string | undefined }[] = [];
  let next = 0;
  for (const replacement of replacements) {
    for (; next < replacement.start; next++)
      output.push({ text: document.lines[next] as string, ending: document.endings[next] });
    for (const line of replacement.lines)
      output.push("kept" in line ? { text: document.lines[line.kept] as string, ending: document.endings[line.kept] } : line);
    next = replacement.start + replacement.deleteCount;
  }
  for (; next < document.lines.length; next++)
    output.push({ text: document.lines[next] as string, ending: document.endings[next] });
  return (
    document.bom +
    output
      .map((line, index) => {
        const last = index === output.length - 1;
        return (
          line.text +
          (last && !finalNewline ? "" : line.ending === undefined || line.ending === "" ? document.newline : line.ending)
        );
      })
      .join("")
  );
}

describe("parseLineDocument", () => {
  it("keeps each line's ending and picks the dominant one", () => {
    const document = parseLineDocument("a\r\nb\nc\r\nd");
    expect(document.lines).toEqual(["a", "b", "c", "d"]);
    expect(document.endings).toEqual(["\r\n", "\n", "\r\n", ""]);
    expect(document.finalNewline).toBe(false);
    expect(document.newline).toBe("\r\n");
  });

  it("breaks a tie by the first ending, defaults to LF, and keeps a lone CR as text", () => {
    expect(parseLineDocument("a\nb\r\n").newline).toBe("\n");
    expect(parseLineDocument("a\r\nb\n").newline).toBe("\r\n");
    expect(parseLineDocument("single").newline).toBe("\n");
    expect(parseLineDocument("x\ry\n").lines).toEqual(["x\ry"]);
  });

  it("treats an empty file as having no lines and a final newline", () => {
    expect(parseLineDocument("")).toMatchObject({ lines: [], finalNewline: true });
    expect(parseLineDocument("\n")).toMatchObject({ lines: [""], finalNewline: true });
  });

  it("keeps a byte-order mark out of the first line and puts it back", () => {
    const document = parseLineDocument("\ufeffhead\nbody\n");
    expect(document.lines[0]).toBe("head");
    expect(renderLineDocument(document, [{ start: 0, deleteCount: 1, lines: [{ text: "new", ending: undefined }] }], true)).toBe(
      "\ufeffnew\nbody\n",
    );
  });
});

describe("renderLineDocument", () => {
  it("round-trips any content without replacements", () => {
    for (const content of ["", "a", "a\n", "a\r\nb\nc", "\n\n", "x\r\n\r\n"]) {
      const document = parseLineDocument(content);
      expect(renderLineDocument(document, [], document.finalNewline)).toBe(content);
    }
  });

  it("gives new lines the dominant ending and keeps the old ones", () => {
    const document = parseLineDocument("a\r\nb\nc\r\n");
    const rendered = renderLineDocument(
      document,
      [{ start: 1, deleteCount: 1, lines: [{ text: "B", ending: undefined }] }],
      true,
    );
    expect(rendered).toBe("a\r\nB\r\nc\r\n");
  });

  it("moves a missing final newline to the new last line", () => {
    const document = parseLineDocument("a\nb");
    const rendered = renderLineDocument(
      document,
      [{ start: 2, deleteCount: 0, lines: [{ text: "c", ending: undefined }] }],
      false,
    );
    expect(rendered).toBe("a\nb\nc");
  });

  it("refuses overlapping replacements (a bug, not a model mistake)", () => {
    const document = parseLineDocument("a\nb\nc\n");
    const lines = [{ text: "x", ending: undefined }];
    expect(() =>
      renderLineDocument(
        document,
        [
          { start: 0, deleteCount: 2, lines },
          { start: 1, deleteCount: 1, lines },
        ],
        true,
      ),
    ).toThrow(/overlapping/);
  });
});

describe("renderLineDocument against the line-by-line rule", () => {
  it("gives the same text for any document, replacements and final newline", () => {
    const piece = fc.constantFrom("a", "b", " ", "\r", "\n", "\r\n", "\ufeff", "é", "x\ty");
    const content = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(""));
    // Kept lines too (a hunk's context): any line of the document, its last one without an ending included.
    const line = fc.oneof(
      fc.record({ text: fc.constantFrom("", "new", "c\r"), ending: fc.constantFrom(undefined, "", "\n", "\r\n") }),
      fc.record({ kept: fc.nat() }),
    );
    const cut = fc.record({ at: fc.nat(), deleteCount: fc.nat({ max: 3 }), lines: fc.array(line, { maxLength: 3 }) });
    fc.assert(
      fc.property(content, fc.array(cut, { maxLength: 4 }), fc.boolean(), (text, cuts, finalNewline) => {
        const document = parseLineDocument(text);
        const length = document.lines.length;
        const replacements: LineReplacement[] = [];
        let next = 0;
        for (const { at, deleteCount, lines } of [...cuts].sort((left, right) => left.at - right.at)) {
          const start = next + (at % (length - next + 1));
          const count = Math.min(deleteCount, length - start);
          replacements.push({ start, deleteCount: count, lines: keptWithin(lines, length) });
          next = start + count;
          if (next > length) break;
        }
        expect(renderLineDocument(document, replacements, finalNewline)).toBe(
          renderLineByLine(document, replacements, finalNewline),
        );
      }),
      { numRuns: 3000 },
    );
  });
});

/** Every line and ending, split the plain way: what the lines cut on demand must equal. */
function splitEagerly(content: string): { lines: string[]; endings: string[] } {
  const body = content.startsWith("\ufeff") ? content.slice(1) : content;
  const parts = body.split("\n");
  const last = parts.pop() as string;
  const lines = parts.map((part) => (part.endsWith("\r") ? part.slice(0, -1) : part));
  const endings: string[] = parts.map((part) => (part.endsWith("\r") ? "\r\n" : "\n"));
  if (last !== "") {
    lines.push(last);
    endings.push("");
  }
  return { lines, endings };
}

describe("lines cut on demand", () => {
  it("give the same lines and endings as splitting the whole text, in any order of access", () => {
    const piece = fc.constantFrom("a", "b", " ", "\r", "\n", "\r\n", "\ufeff", "é", "x\ty");
    const content = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(content, fc.array(fc.nat(), { maxLength: 10 }), (text, probes) => {
        const expected = splitEagerly(text);
        const document = parseLineDocument(text);
        expect(document.length).toBe(expected.lines.length);
        // Single lines first (nothing made for the whole file yet), then the whole arrays.
        for (const probe of probes) {
          const at = expected.lines.length === 0 ? 0 : probe % expected.lines.length;
          expect(document.lineAt(at)).toBe(expected.lines[at] ?? "");
          expect(document.endingAt(at)).toBe(expected.endings[at] ?? "");
        }
        expect(document.lines).toEqual(expected.lines);
        expect(document.endings).toEqual(expected.endings);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("countLines", () => {
  it("counts a last line without a newline and not an empty one after it", () => {
    expect([countLines(""), countLines("a"), countLines("a\n"), countLines("a\nb"), countLines("\n\n")]).toEqual([0, 1, 1, 2, 2]);
  });
});

describe("a document of bytes", () => {
  it("has the lines of its text and renders the bytes of the text's rendering, for any document and replacements", () => {
    const piece = fc.constantFrom("a", "b", " ", "\r", "\n", "\r\n", "\ufeff", "é", "x\ty", "😀");
    const content = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(""));
    const line = fc.oneof(
      fc.record({ text: fc.constantFrom("", "new", "c\r", "ü"), ending: fc.constantFrom(undefined, "", "\n", "\r\n") }),
      fc.record({ kept: fc.nat() }),
    );
    const cut = fc.record({ at: fc.nat(), deleteCount: fc.nat({ max: 3 }), lines: fc.array(line, { maxLength: 3 }) });
    fc.assert(
      fc.property(content, fc.array(cut, { maxLength: 4 }), fc.boolean(), (text, cuts, finalNewline) => {
        const fromText = parseLineDocument(text);
        const fromBytes = parseLineDocument(Buffer.from(text));
        expect(fromBytes.lines).toEqual(fromText.lines);
        expect(fromBytes.endings).toEqual(fromText.endings);
        expect([fromBytes.bom, fromBytes.newline, fromBytes.finalNewline]).toEqual([
          fromText.bom,
          fromText.newline,
          fromText.finalNewline,
        ]);
        const length = fromText.lines.length;
        const replacements: LineReplacement[] = [];
        let next = 0;
        for (const { at, deleteCount, lines } of [...cuts].sort((left, right) => left.at - right.at)) {
          const start = next + (at % (length - next + 1));
          const count = Math.min(deleteCount, length - start);
          replacements.push({ start, deleteCount: count, lines: keptWithin(lines, length) });
          next = start + count;
          if (next > length) break;
        }
        const rendered = renderLineDocument(fromBytes, replacements, finalNewline);
        expect(Buffer.isBuffer(rendered)).toBe(true);
        expect(rendered.toString("utf8")).toBe(renderLineDocument(fromText, replacements, finalNewline));
        // The pieces the commit writes (with and without the BOM) are the same bytes.
        const pieced = fromBytes.renderContent(replacements, finalNewline, true) as PiecedBytes;
        expect(pieced).toBeInstanceOf(PiecedBytes);
        expect(Buffer.concat(pieced.pieces).equals(rendered)).toBe(true);
        expect(pieced.byteLength).toBe(rendered.byteLength);
        expect(pieced.equals(rendered)).toBe(true);
        expect(pieced.countLines()).toBe(countLines(rendered));
        expect(pieced.transient().equals(rendered)).toBe(true);
        const withoutBom = fromBytes.renderContent(replacements, finalNewline, false) as PiecedBytes;
        expect(withoutBom.bytes().equals(rendered.subarray(fromBytes.bom === "" ? 0 : 3))).toBe(true);
        expect(fromText.renderContent(replacements, finalNewline, false)).toBe(
          renderLineDocument(fromText, replacements, finalNewline).slice(fromText.bom.length),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps bytes that are not UTF-8 in the lines no replacement touches", () => {
    const bytes = Buffer.concat([Buffer.from("keep \xff\r\n", "latin1"), Buffer.from("old\r\nlast \xe9\r\n", "latin1")]);
    const document = parseLineDocument(bytes);
    const rendered = renderLineDocument(
      document,
      [{ start: 1, deleteCount: 1, lines: [{ text: "new", ending: undefined }] }],
      true,
    );
    expect(rendered.toString("latin1")).toBe("keep \xff\r\nnew\r\nlast \xe9\r\n");
  });

  it("keeps those bytes in kept lines inside a replacement too (a hunk's context lines)", () => {
    const bytes = Buffer.from("ctx \xff\r\nold\nlast \xe9", "latin1");
    const document = parseLineDocument(bytes);
    const replaced = [{ kept: 0 }, { text: "new", ending: undefined }, { kept: 2 }];
    const ended = renderLineDocument(document, [{ start: 0, deleteCount: 3, lines: replaced }], true);
    // New lines, and a kept last line without an ending of its own, take the dominant ending (CRLF: first on a tie).
    expect(ended.toString("latin1")).toBe("ctx \xff\r\nnew\r\nlast \xe9\r\n");
    const open = renderLineDocument(document, [{ start: 0, deleteCount: 3, lines: replaced }], false);
    expect(open.toString("latin1")).toBe("ctx \xff\r\nnew\r\nlast \xe9");
  });
});
