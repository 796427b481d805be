import { tokenize } from "./tokenize.js";

/**
 * Groups of words that a request and a tool description use for the same thing. Written from
 * general software and everyday vocabulary (how people ask for an action, how tool authors name
 * it), not from any benchmark's queries: a user says "tell the team", the tool says
 * "post message"; "where is", "location"; "who", "user". Each word of a query also looks up the
 * other words of its groups, at a fraction of their weight (see `SearchIndexOptions.relatedWeight`),
 * so an exact match always ranks above a related one.
 *
 * Kept small on purpose: broad groups ("get" = "make") turn every query into every tool.
 */
const GROUPS: readonly string[] = [
  // Finding and reading
  "search find lookup query locate seek discover look",
  "get fetch retrieve obtain read load pull",
  "list enumerate browse show display",
  "download fetch save",
  "view show see inspect open",
  "check verify validate test",
  "count number total many",
  "detail details info information metadata properties",
  // Changing
  "create make add new generate build insert",
  "delete remove erase drop destroy discard trash purge",
  "update modify change edit alter patch set",
  "rename move relocate",
  "copy duplicate clone",
  "write save store persist record",
  "upload attach",
  "replace substitute swap",
  "append add",
  "merge combine join",
  "sort order rank arrange",
  "filter narrow restrict",
  // Acting
  "run execute launch start invoke perform trigger",
  "stop halt cancel terminate kill abort end",
  "pause suspend",
  "resume continue restart",
  "schedule plan book reserve",
  "send post publish tell notify announce share broadcast",
  "reply respond answer",
  "comment remark note annotate",
  "react reaction emoji",
  "approve accept confirm",
  "reject deny decline refuse",
  "assign delegate",
  "subscribe follow watch",
  "invite add",
  "translate convert transform",
  "calculate compute evaluate",
  "compare diff difference",
  "summarize summary overview digest recap",
  "analyze analyse analysis examine",
  "navigate visit go browse open",
  "click press tap select",
  "type fill enter input",
  "screenshot capture snapshot",
  "scroll swipe",
  "wait sleep delay",
  "remember memorize memory recall",
  "forget delete",
  "login signin authenticate auth",
  "logout signout",
  "install setup",
  "deploy release ship",
  "test check",
  "fix repair resolve",
  // People and places
  "user person people member account profile who someone",
  "team group organization org company",
  "channel room conversation chat",
  "message text chat dm",
  "thread replies discussion",
  "email mail inbox",
  "contact phone",
  "location place address where spot",
  "coordinates latitude longitude geocode",
  "nearby near around close local",
  "route directions path navigation way",
  "distance far long",
  "travel trip journey commute",
  "weather forecast temperature climate rain",
  "time date clock hour",
  "timezone zone",
  "calendar event meeting appointment",
  "today now current latest recent",
  "history past previous log",
  // Things
  "file document doc",
  "folder directory dir",
  "image picture photo photograph pic",
  "video movie film clip",
  "music song track audio",
  "website site page webpage url link web",
  "news headline article",
  "price cost fee rate",
  "buy purchase order",
  "sell sale",
  "money payment pay invoice bill",
  "stock share ticker market",
  "issue bug ticket problem defect",
  "repository repo project codebase",
  "commit revision changeset",
  "branch ref",
  "pull request pr",
  "code source",
  "error failure exception crash fault",
  "database db table sql",
  "record row entry item",
  "key value setting config configuration option preference",
  "secret password credential token",
  "graph node edge relation relationship entity",
  "tag label category",
  "star favorite like bookmark",
  "size length",
  "word term",
  "name title",
  "description text content body",
  "status state progress",
  "result output response",
  "recipe cook food meal",
  "restaurant cafe dining",
  "flight airline plane",
  "hotel lodging accommodation",
  "job career employment work",
  "health medical doctor",
  "book novel",
  "game play",
];

/** Word (stem) → the other stems of its groups. */
export type RelatedWords = ReadonlyMap<string, readonly string[]>;

let builtIn: RelatedWords | undefined;

function buildTable(groups: readonly string[]): RelatedWords {
  const table = new Map<string, Set<string>>();
  for (const group of groups) {
    const stems = [...new Set(group.split(/\s+/).flatMap((word) => tokenize(word, { keepStopWords: true })))];
    for (const stem of stems) {
      const related = table.get(stem) ?? new Set<string>();
      table.set(stem, related);
      for (const other of stems) if (other !== stem) related.add(other);
    }
  }
  return new Map([...table].map(([stem, related]) => [stem, [...related]]));
}

/**
 * The related-word table, stemmed as the index stems: the built-in groups (built once, on the
 * first search that needs them) plus the host's `extra` groups, each a space-separated list of
 * words that mean the same in its domain (`"invoice bill receipt"`).
 */
export function relatedWords(extra: readonly string[] = []): RelatedWords {
  if (extra.length > 0) return buildTable([...GROUPS, ...extra]);
  builtIn ??= buildTable(GROUPS);
  return builtIn;
}
