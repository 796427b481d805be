import { CatalogError } from "../../errors/catalog-error.js";
import type { CommitGraph } from "./commit-graph.js";

/** Who made a commit and when, as git records it. */
export interface Signature {
  /** The name. */
  readonly name: string;
  /** The e-mail address, without angle brackets. */
  readonly email: string;
  /** Seconds since the epoch. */
  readonly timestamp: number;
  /** The time zone as git writes it, e.g. `"+0100"`. */
  readonly zone: string;
}

/** A parsed commit. */
export interface CommitRecord {
  /** The commit's id. */
  readonly oid: string;
  /** Its root tree. */
  readonly tree: string;
  /** Its parents, first parent first. */
  readonly parents: readonly string[];
  /** The author. */
  readonly author: Signature;
  /** The committer; its timestamp orders history walks, as in `git log`. */
  readonly committer: Signature;
  /** The committer's timestamp (what orders walks), known without parsing the rest when it comes from the commit-graph. */
  readonly time: number;
  /** The whole message. */
  readonly message: string;
}

/** What a tree entry points at. */
export type TreeEntryKind = "blob" | "tree" | "commit";

/** One entry of a tree. */
export interface TreeEntry {
  /** The file or directory name. */
  readonly name: string;
  /** The mode as git writes it, e.g. `"100644"`, `"40000"`. */
  readonly mode: string;
  /** The object id. */
  readonly oid: string;
  /** A file or symlink (`blob`), a directory (`tree`) or a submodule (`commit`). */
  readonly kind: TreeEntryKind;
}

/** A parsed annotated tag: only what peeling needs. */
export interface TagRecord {
  /** The tagged object. */
  readonly object: string;
  /** Its type. */
  readonly type: string;
}

const UNKNOWN: Signature = { name: "", email: "", timestamp: 0, zone: "+0000" };

function parseSignature(value: string): Signature {
  const open = value.lastIndexOf("<");
  const close = value.lastIndexOf(">");
  if (open < 0 || close < open) return { ...UNKNOWN, name: value.trim() };
  const [seconds = "0", zone = "+0000"] = value
    .slice(close + 1)
    .trim()
    .split(" ");
  const timestamp = Number.parseInt(seconds, 10);
  return {
    name: value.slice(0, open).trim(),
    email: value.slice(open + 1, close),
    timestamp: Number.isFinite(timestamp) ? timestamp : 0,
    zone,
  };
}

/**
 * A commit's message: after the header, up to a NUL if it has one. git reads a commit as a C
 * string for `log`, `--grep` and `%s` (`git log --grep` never matches text after a NUL, and
 * `%s` stops there), so text hidden after one is not the message git shows.
 */
function messageOf(text: string, headerEnd: number): string {
  if (headerEnd < 0) return "";
  const nul = text.indexOf("\u0000", headerEnd + 2);
  return nul < 0 ? text.slice(headerEnd + 2) : text.slice(headerEnd + 2, nul);
}

/**
 * Bytes 0x80-0x9F in windows-1252 (the WHATWG table, as glibc's iconv maps them); 0 where the
 * code page has no character (0x81, 0x8D, 0x8F, 0x90, 0x9D).
 */
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0, 0, 0x2018,
  0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];
const CP1252_LABELS = new Set(["windows-1252", "cp1252", "x-cp1252"]);
const ASCII_LABELS = new Set(["ascii", "us-ascii", "ansi_x3.4-1968"]);

/**
 * Single-byte text the way git's iconv reads it; `undefined` where iconv fails (git then shows the
 * bytes as they are). Node's TextDecoder answers Latin-1 for every label the WHATWG maps to
 * windows-1252 (`latin1`, `iso-8859-1`, `ascii`, `windows-1252` alike), while iconv gives
 * € ‚ ƒ „ … for windows-1252's 0x80-0x9F, C1 controls for ISO-8859-1 and fails on ASCII's high bytes.
 */
function decodeSingleByte(content: Buffer, label: string): string | undefined {
  const cp1252 = CP1252_LABELS.has(label);
  const ascii = ASCII_LABELS.has(label);
  let text = "";
  for (let start = 0; start < content.length; start += 8192) {
    const codes: number[] = [];
    for (const byte of content.subarray(start, start + 8192)) {
      if (byte >= 0x80 && ascii) return undefined;
      const code = cp1252 && byte >= 0x80 && byte < 0xa0 ? (CP1252_HIGH[byte - 0x80] as number) : byte;
      if (code === 0 && byte !== 0) return undefined;
      codes.push(code);
    }
    text += String.fromCharCode(...codes);
  }
  return text;
}

/** `content` decoded from `encoding` (a commit's `encoding` header); `undefined` when the label is not one Node decodes. */
function decodeFrom(content: Buffer, encoding: string): string | undefined {
  try {
    const decoder = new TextDecoder(encoding);
    return decoder.encoding === "windows-1252" ? decodeSingleByte(content, encoding.toLowerCase()) : decoder.decode(content);
  } catch {
    return undefined;
  }
}

/**
 * Parses a commit object's content. A commit written with `i18n.commitEncoding` (an `encoding`
 * header other than UTF-8) is decoded from that encoding, as `git log` re-encodes it to UTF-8 for
 * display and `--grep`; a label Node does not know is read as UTF-8 (git shows the bytes as they are too).
 */
export function parseCommit(oid: string, content: Buffer): CommitRecord {
  return parseCommitText(oid, content, content.toString("utf8"), false);
}

function parseCommitText(oid: string, content: Buffer, text: string, decoded: boolean): CommitRecord {
  const headerEnd = text.indexOf("\n\n");
  const header = headerEnd < 0 ? text : text.slice(0, headerEnd);
  let tree = "";
  const parents: string[] = [];
  let author = UNKNOWN;
  let committer = UNKNOWN;
  for (const line of header.split("\n")) {
    if (line.startsWith(" ")) continue;
    const space = line.indexOf(" ");
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === "tree") tree = value;
    else if (key === "parent") parents.push(value);
    else if (key === "author") author = parseSignature(value);
    else if (key === "committer") committer = parseSignature(value);
    else if (key === "encoding" && !decoded && !/^utf-?8$/i.test(value)) {
      const text = decodeFrom(content, value);
      if (text !== undefined) return parseCommitText(oid, content, text, true);
    }
  }
  if (!/^[0-9a-f]{40}$/.test(tree)) throw new CatalogError("corrupt_object", `Commit ${oid} has no tree.`);
  return {
    oid,
    tree,
    parents,
    author,
    committer,
    time: committer.timestamp,
    message: messageOf(text, headerEnd),
  };
}

/** Parses the header of an annotated tag. */
export function parseTag(content: Buffer): TagRecord {
  const header = content.toString("utf8", 0, Math.min(content.length, 512));
  const object = /^object ([0-9a-f]{40})$/m.exec(header)?.[1] ?? "";
  const type = /^type (\w+)$/m.exec(header)?.[1] ?? "";
  return { object, type };
}

/**
 * A commit as the commit-graph describes it, read in place: its date at hand, its id, tree and
 * parents turned into text only when asked (a path-limited walk compares raw tree ids and follows
 * parent positions, so most commits never need them), the rest (author, committer, message)
 * parsed from the object on first use. A history walk that only follows parents and compares
 * trees never inflates the commits it passes over.
 */
export class GraphCommit implements CommitRecord {
  private full: CommitRecord | undefined;
  private oidText: string | undefined;
  private treeText: string | undefined;
  private parentIds: readonly string[] | undefined;
  private parentList: readonly number[] | undefined;
  /** The committer date, from the graph. */
  readonly time: number;

  constructor(
    /** The graph that lists it. */
    readonly graph: CommitGraph,
    /** Its position in the commit-graph (parents, tree and changed-path filters are read by it). */
    readonly graphPosition: number,
    /** Reads and parses the commit object (synchronously: the node driver's reads are). */
    private readonly load: (oid: string) => CommitRecord,
    /** Its id, when the caller has it already. */
    oid?: string,
  ) {
    this.oidText = oid;
    this.time = graph.timeOf(graphPosition);
  }

  get oid(): string {
    this.oidText ??= this.graph.oidOf(this.graphPosition);
    return this.oidText;
  }

  get tree(): string {
    this.treeText ??= this.graph.treeOf(this.graphPosition);
    return this.treeText;
  }

  get parents(): readonly string[] {
    this.parentIds ??= this.parentPositions.map((position) => this.graph.oidOf(position));
    return this.parentIds;
  }

  /** The graph positions of its parents, first parent first. */
  get parentPositions(): readonly number[] {
    this.parentList ??= this.graph.parentPositions(this.graphPosition);
    return this.parentList;
  }

  /** Whether its object was read and parsed already. */
  get parsed(): boolean {
    return this.full !== undefined;
  }

  private record(): CommitRecord {
    this.full ??= this.load(this.oid);
    return this.full;
  }

  get author(): Signature {
    return this.record().author;
  }

  get committer(): Signature {
    return this.record().committer;
  }

  get message(): string {
    return this.record().message;
  }
}

/**
 * How many parents `commit` has; a commit from the commit-graph answers from its parent positions,
 * without turning their ids into text (a walk asks every commit whether it is a merge).
 */
export function parentCount(commit: CommitRecord): number {
  return commit instanceof GraphCommit ? commit.parentPositions.length : commit.parents.length;
}
