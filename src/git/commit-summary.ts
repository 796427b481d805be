import { type Mailmap, NO_MAILMAP } from "./mailmap.js";
import { type CommitRecord, parentCount, type Signature } from "./objects/parse-objects.js";

/** Hex digits of the commit ids in answers: short to read, long enough to stay unique. */
export const SHORT_ID_LENGTH = 10;

/**
 * A commit as the tools show it.
 *
 * @public
 */
export interface CommitSummary {
  /** The commit id, `SHORT_ID_LENGTH` (10) hex digits. */
  readonly sha: string;
  /** The author date, ISO 8601 in the author's time zone (`git log --format=%aI`). */
  readonly date: string;
  /** The author's name. */
  readonly author: string;
  /** The first line of the message. */
  readonly subject: string;
  /** Present on merge commits. */
  readonly merge?: true;
}

/** A short commit id. */
export function shortId(oid: string): string {
  return oid.slice(0, SHORT_ID_LENGTH);
}

/** A signature's time as ISO 8601 in its own zone, like git's `%aI`: `2024-01-02T10:00:00+01:00`. */
export function isoDate(signature: Signature): string {
  const match = /^([+-])(\d{2})(\d{2})$/.exec(signature.zone);
  const sign = match?.[1] === "-" ? -1 : 1;
  const offsetMinutes = match === null ? 0 : sign * (Number(match[2]) * 60 + Number(match[3]));
  const local = new Date((signature.timestamp + offsetMinutes * 60) * 1000).toISOString().slice(0, 19);
  const zone = match === null ? "+00:00" : `${match[1]}${match[2]}:${match[3]}`;
  return `${local}${zone}`;
}

/** The subject of a message as git's `%s` makes it (its first paragraph on one line), at most 200 characters. */
export function subjectOf(message: string): string {
  const paragraph = message.trimStart().split(/\n\s*\n/, 1)[0] ?? "";
  const line = paragraph
    .split("\n")
    .map((part) => part.trim())
    .join(" ")
    .trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The summary of a commit, its author under the name `mailmap` gives them (as `git log` shows it). */
export function summarize(commit: CommitRecord, mailmap: Mailmap = NO_MAILMAP): CommitSummary {
  return {
    sha: shortId(commit.oid),
    date: isoDate(commit.author),
    author: mailmap.empty ? commit.author.name : mailmap.map(commit.author).name,
    subject: subjectOf(commit.message),
    ...(parentCount(commit) > 1 ? { merge: true as const } : {}),
  };
}
