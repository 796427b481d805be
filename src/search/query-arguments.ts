/**
 * Requests carry values as well as intent: "pull https://kubernetes.io/blog/... as markdown",
 * "show the last 50 lines of /var/log/app/error.log". The words inside a URL or a file path name
 * the thing to act on, not the action, yet as plain words they match tools of the same name (the
 * `kubernetes` server, `kubectl_logs`). This module finds those values so the ranker can count
 * their words at a reduced weight and count instead what kind of value they are (`url`, `file`).
 *
 * Each whitespace-separated word is classified on its own with string checks, no regular
 * expression over the whole query: a query is model input, and patterns that backtrack over
 * `a.a.a.a...` would make a long one quadratic.
 */

/** One span of a query: its text, and the kind of value it is, if it is one. */
export interface QuerySpan {
  readonly text: string;
  /** `url`, `file` (a path or name with an extension), `path` (a path without one), or none. */
  readonly kind?: "url" | "file" | "path";
}

/** Top-level domains that make a dotted word a host name ("acme.io") rather than a file name. */
const HOST_DOMAINS = new Set(
  "com org net io dev ai app co edu gov info biz me us uk de fr jp cn ru xyz tech site cloud".split(" "),
);
const SCHEME = /^[a-z][a-z0-9+.-]{0,30}:\/\//i;
const LETTER = /[a-z]/i;
const EXTENSION = /^[a-z][a-z0-9]{0,5}$/i;
const NAME_PART = /^[\w@-]+$/;
const DOT_FILE = /^[a-z][\w-]{1,30}$/i;
// Punctuation around a value that belongs to the sentence: quotes, brackets, a final comma or period.
const LEADING = new Set("(\"'`[<{");
const TRAILING = new Set(")\"'`]>},;:!?.");

/**
 * Splits `query` into plain text and values (URLs, paths, file names), in order. Text without a
 * value comes back as one plain span. Linear in the query's length.
 */
export function querySpans(query: string): QuerySpan[] {
  if (!query.includes("/") && !query.includes(".")) return [{ text: query }];
  const spans: QuerySpan[] = [];
  let plain = "";
  for (const piece of query.split(/(\s+)/)) {
    let lead = 0;
    while (lead < piece.length && LEADING.has(piece[lead] as string)) lead++;
    let end = piece.length;
    while (end > lead && TRAILING.has(piece[end - 1] as string)) end--;
    const core = piece.slice(lead, end);
    const kind = core.length === 0 ? undefined : valueKind(core);
    if (kind === undefined) {
      plain += piece;
      continue;
    }
    plain += piece.slice(0, lead);
    if (plain !== "") spans.push({ text: plain });
    spans.push({ text: core, kind });
    plain = piece.slice(lead + core.length);
  }
  if (plain !== "") spans.push({ text: plain });
  return spans;
}

/** The kind of value one word is, or undefined for an ordinary word. */
function valueKind(word: string): QuerySpan["kind"] {
  if (!LETTER.test(word)) return undefined;
  if (SCHEME.test(word) || word.toLowerCase().startsWith("www.")) return "url";
  const slash = word.indexOf("/");
  if (isHost(slash === -1 ? word : word.slice(0, slash))) return "url";
  const last = word.slice(word.lastIndexOf("/") + 1);
  if (isFileName(last)) return "file";
  if (slash !== -1 && word.length > 1) return "path";
  return undefined;
}

function isHost(word: string): boolean {
  const colon = word.indexOf(":");
  const labels = (colon === -1 ? word : word.slice(0, colon)).split(".");
  return (
    labels.length >= 2 &&
    HOST_DOMAINS.has((labels.at(-1) as string).toLowerCase()) &&
    labels.every((label) => NAME_PART.test(label))
  );
}

/** `deploy.sh`, `tsconfig.build.json`; not `e.g`, `2.3` or `spec.template.tolerations`. */
function isFileName(word: string): boolean {
  const parts = word.split(".");
  if (parts.length < 2) return false;
  // A dot file: ".env", ".gitignore".
  if (parts.length === 2 && parts[0] === "") return DOT_FILE.test(parts[1] as string);
  const extension = parts.at(-1) as string;
  if (!EXTENSION.test(extension)) return false;
  const base = parts.slice(0, -1);
  if (!base.every((part) => NAME_PART.test(part))) return false;
  // Abbreviations such as "e.g" and "i.e": single letters on both sides.
  return !(extension.length === 1 && base.every((part) => part.length === 1));
}
