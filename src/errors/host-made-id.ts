import { ConfigurationError } from "./configuration-error.js";

/** How a refusal of {@link hostMadeId} names what the id is for. */
export interface HostMadeIdNames {
  /** Who asked, e.g. `InMemoryApprovalBroker`. */
  readonly where: string;
  /** What each id names, singular: `request`, `job`, `subagent`. */
  readonly item: string;
  /** What holds a repeated id already, e.g. `a request still pending`. */
  readonly holder: string;
  /** What did not happen, a sentence: `Nothing was started.` */
  readonly outcome: string;
}

/**
 * `made`, an id a host's `createId` returned, once it is a non-empty string that `kept` does not
 * hold. Tables of work are keyed by such ids, so a repeated id replaces an entry whose work then
 * runs on outside every limit, cancel and approval (red team round 23).
 *
 * @throws ConfigurationError `invalid_option` (field `createId`) otherwise, naming the id.
 */
export function hostMadeId(made: unknown, kept: { has(id: string): boolean }, names: HostMadeIdNames): string {
  if (typeof made === "string" && made !== "" && !kept.has(made)) return made;
  const what = typeof made === "string" && made !== "" ? `"${made.slice(0, 200)}", the id of ${names.holder}` : typeof made;
  throw new ConfigurationError(
    "invalid_option",
    `${names.where}: createId returned ${what}; each ${names.item} needs an id of its own. ${names.outcome}`,
    { data: { field: "createId" } },
  );
}
