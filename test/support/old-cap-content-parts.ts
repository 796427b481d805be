import { countOf } from "../../src/errors/count-of.js";
// The cap of content parts as it was before one cut condensed once (commit 77700b4), kept as the
// reference the faster algorithm must match exactly (src/run/cap-content-parts-reference.test.ts).
// Its condenseText is the one of that commit too.

import { capText } from "../../src/run/json-safe-output.js";
import { pairSafeEnd, pairSafeStart, wellFormed } from "../../src/run/well-formed-text.js";
import type { ToolContentPart } from "../../src/tool/tool-content.js";

/** The size of a base64 string's bytes. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function describeBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * Most image and file parts one result passes on. The byte budget alone let 100,000 tiny images
 * through (a hostile MCP server's result): no provider takes that many in a request (Anthropic's
 * API stops at 100 per request, Bedrock at 20) and each costs tokens whatever its size.
 */
export const MAX_BINARY_PARTS = 20;

/**
 * What one text part costs against a result's text budget besides its characters: about its
 * wrapper in a provider's request. Without it 100,000 empty parts would cost nothing.
 */
const TEXT_PART_OVERHEAD = 32;

/**
 * The smallest share a text part is cut to while every part is kept; below it, parts are dropped
 * and counted instead (a cut part would be little but marker). Half the budget at most, so that at
 * a small `condenseThreshold` two parts are still both cut rather than dropped.
 */
const MIN_TEXT_SHARE = 1_000;

/**
 * Keeps a result's parts within the run's limits: text parts are condensed like text outputs, and
 * binary parts are kept in order while their decoded bytes fit `maxBinaryBytes`; a part that does
 * not fit (or is not valid base64) becomes a text part saying what was left out, so the model
 * knows it exists. Past `MAX_BINARY_PARTS` kept, the other binary parts are dropped and counted
 * in one closing text part (one line each would be 100,000 lines). `redact`, when given, rewrites each whole text part (cut at 8 Mi characters
 * first, and what it returns too) before it is condensed: condensing first split a secret across
 * the cut, and neither half matched the hook.
 *
 * All text parts together stay within `condenseThreshold`, the limit of a text output: capping
 * each part alone let a handler's 100,000 small parts all reach the model. Over it, every part is
 * cut to one share (parts shorter than the share keep their text, see `shareOf`), condensed head
 * and tail like a long output; once the budget is spent, the other text parts are dropped and
 * counted in a closing line. A result within the budget is unchanged.
 */
export function capContentParts(
  parts: readonly ToolContentPart[],
  limits: { readonly condenseThreshold: number; readonly maxBinaryBytes: number },
  redact?: (text: string) => string,
): ToolContentPart[] {
  let budget = limits.maxBinaryBytes;
  let kept = 0;
  let dropped = 0;
  const out: ToolContentPart[] = [];
  for (const part of parts) {
    if (part === null || typeof part !== "object") continue;
    if (part.type === "text") {
      // Condensed (once) by capTotalText, which knows the other parts.
      out.push({
        type: "text",
        text: redact === undefined ? wellFormed(String(part.text)) : capText(redact(capText(String(part.text)))),
      });
      continue;
    }
    if (part.type !== "image" && part.type !== "file") continue;
    if (kept >= MAX_BINARY_PARTS) {
      dropped++;
      continue;
    }
    const kind = part.type === "image" ? "image" : "file";
    if (typeof part.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(part.data) || typeof part.mediaType !== "string") {
      out.push({ type: "text", text: `[${kind} omitted: its data is not base64 with a media type]` });
      continue;
    }
    const bytes = decodedBytes(part.data);
    if (bytes > budget) {
      out.push({
        type: "text",
        text: `[${kind} omitted: ${part.mediaType}, ${describeBytes(bytes)}, over the ${describeBytes(limits.maxBinaryBytes)} a result may carry]`,
      });
      continue;
    }
    budget -= bytes;
    kept++;
    out.push(part);
  }
  const capped = capTotalText(out, limits.condenseThreshold);
  if (dropped > 0) {
    capped.push({
      type: "text",
      text: `[${dropped} more image and file parts omitted: a result may carry at most ${MAX_BINARY_PARTS}]`,
    });
  }
  return capped;
}

/**
 * Condenses the text parts (the handler's and the lines saying what was left out) to `limit`
 * characters in all, counting `TEXT_PART_OVERHEAD` per part (one wrapper free), binary parts kept
 * where they are. When each part condensed alone fits (one long part, a few short ones), that is
 * what is done, exactly as before. Otherwise the parts are cut to a water-filling share of the
 * budget, each cut to fit its share exactly, marker included, so only the excess and the markers
 * are lost (one character over cut one part by one character and its marker, not every part by
 * hundreds); only when parts of at least `MIN_TEXT_SHARE` keep more text are the later parts
 * dropped and counted in a closing line, whose room is its real length (a shorter form at small limits).
 */
function capTotalText(parts: readonly ToolContentPart[], limit: number): ToolContentPart[] {
  const costs: number[] = [];
  let total = 0;
  let chars = 0;
  for (const part of parts) {
    if (part.type !== "text") continue;
    const cost = Math.min(part.text.length, limit) + TEXT_PART_OVERHEAD;
    costs.push(cost);
    total += cost;
    chars += part.text.length;
  }
  // One part's wrapper is free: a lone part is held to `limit` like a text output.
  if (total <= limit + TEXT_PART_OVERHEAD) {
    return parts.map((part) =>
      part.type === "text" && part.text.length > limit ? { type: "text", text: condenseText(part.text, limit) } : part,
    );
  }
  const budget = limit + TEXT_PART_OVERHEAD;
  const minShare = Math.min(MIN_TEXT_SHARE, Math.floor(budget / 2));
  const share = shareOf(costs, budget);
  // A share no larger than a wrapper leaves no text: every cut part would be dropped.
  const all = share > TEXT_PART_OVERHEAD ? fitParts(parts, share, budget) : undefined;
  // Shares of at least `MIN_TEXT_SHARE` are worth it: no need to try dropping parts.
  if (all !== undefined && all.dropped === 0 && share >= minShare) return all.out;
  // Some parts must go: room for the closing line at its longest (every part, every character).
  // The closing line's form is chosen once, for the line at its longest, as the library does since
  // it stopped choosing per line (a shorter line could take the long form where only the short one
  // had room): that fix is not what this reference checks, the cuts are.
  const full =
    closingLine(costs.length, chars, limit, budget).length === closingLine(costs.length, chars, limit, Infinity).length;
  const closing = (droppedParts: number, droppedChars: number) =>
    closingLine(droppedParts, droppedChars, limit, full ? Infinity : 0);
  const closingCost = closing(costs.length, chars).length + TEXT_PART_OVERHEAD;
  const left = Math.max(0, budget - closingCost);
  const kept = fitParts(parts, Math.max(shareOf(costs, left), Math.min(minShare, left)), left);
  // Every part kept, cut to a share, unless dropping the later ones keeps more text (400 parts of
  // 5,000 characters: 40 parts of 1,000 say more than 400 of 100, each mostly marker).
  if (all !== undefined && all.dropped === 0 && all.textLength >= kept.textLength) return all.out;
  if (kept.dropped > 0 && closingCost <= budget) {
    kept.out.push({ type: "text", text: closing(kept.dropped, kept.droppedChars) });
  }
  return kept.out;
}

/**
 * The text parts in order, each given `share` (or what is left of `budget`, if less): kept whole
 * when it fits, cut to fit exactly otherwise, dropped when not even a marker fits.
 */
function fitParts(
  parts: readonly ToolContentPart[],
  share: number,
  budget: number,
): { out: ToolContentPart[]; dropped: number; droppedChars: number; textLength: number } {
  let left = budget;
  let textLength = 0;
  let dropped = 0;
  let droppedChars = 0;
  const out: ToolContentPart[] = [];
  for (const part of parts) {
    if (part.type !== "text") {
      out.push(part);
      continue;
    }
    const room = Math.min(share, left) - TEXT_PART_OVERHEAD;
    const text = part.text.length <= room ? part.text : room > 0 ? cutTo(part.text, room) : undefined;
    if (text === undefined) {
      dropped++;
      droppedChars += part.text.length;
      continue;
    }
    left -= text.length + TEXT_PART_OVERHEAD;
    textLength += text.length;
    out.push(text === part.text ? part : { type: "text", text });
  }
  return { out, dropped, droppedChars, textLength };
}

/** The fewest characters of text a head-and-tail cut keeps beside its marker (about as long). */
const MIN_CONDENSED = 100;

/**
 * `text` cut to at most `room` characters, marker included: condensed head and tail when the
 * marker leaves text beside it, else its head and a short marker (a small `condenseThreshold`);
 * undefined when not even that fits.
 */
function cutTo(text: string, room: number): string | undefined {
  // The marker's length depends on the numbers in it: size the text to the room the marker
  // leaves, and shrink by any overshoot. Below `MIN_CONDENSED` characters of text the long marker
  // would outweigh it: the short one is used.
  let length = room - 100;
  let best: string | undefined;
  for (let tries = 0; tries < 4 && length >= MIN_CONDENSED; tries++) {
    const condensed = condenseText(text, length);
    if (condensed.length <= room && (best === undefined || condensed.length > best.length)) best = condensed;
    // Room less this marker's length; done when that is no longer than what fits already.
    const next = room - (condensed.length - length) - (condensed.length > room ? 1 : 0);
    if (condensed.length <= room && next <= length) break;
    length = next;
  }
  if (best !== undefined) return best;
  const marker = `[… ${text.length} more]`;
  const head = pairSafeEnd(text, room - marker.length);
  if (head <= 0) return undefined;
  return `${text.slice(0, head)}[… ${text.length - head} more]`;
}

/** The line counting dropped text parts: in full when it costs at most a quarter of the budget. */
function closingLine(droppedParts: number, droppedChars: number, limit: number, budget: number): string {
  const full = `[${countOf(droppedParts, "more text part")} (${countOf(droppedChars, "character")}) omitted: a result's text may total at most ${limit} characters]`;
  if (full.length + TEXT_PART_OVERHEAD <= budget / 4) return full;
  return `[${countOf(droppedParts, "more text part")} omitted]`;
}

/**
 * The largest share such that every part costing less keeps all of it and every other part is
 * cut to the share, all within `budget` (water filling): one long part beside short ones is cut,
 * the short ones are not.
 */
function shareOf(costs: readonly number[], budget: number): number {
  const sorted = [...costs].sort((a, b) => a - b);
  let spent = 0;
  for (let i = 0; i < sorted.length; i++) {
    const cost = sorted[i] as number;
    const rest = sorted.length - i;
    if (spent + cost * rest > budget) return Math.floor((budget - spent) / rest);
    spent += cost;
  }
  return Number.POSITIVE_INFINITY;
}

/** The text of a result's parts, for `output` and for providers that take only text. */
export function contentPartsAsText(parts: readonly ToolContentPart[]): string {
  return parts
    .map((part) =>
      part.type === "text"
        ? part.text
        : `[${part.type}: ${part.mediaType}, ${describeBytes(decodedBytes(part.data))}${part.type === "file" && part.filename !== undefined ? `, ${part.filename}` : ""}]`,
    )
    .join("\n\n");
}

/**
 * Cuts `text` over `maxLength` characters to its head and tail with a marker in between that
 * says how much was left out, so a long output never floods the context and is never dropped
 * silently. Cuts fall on line breaks when one is near, and never inside a surrogate pair (half an
 * emoji is a lone surrogate, which providers refuse).
 */
function condenseText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const headLength = Math.floor(maxLength * 0.6);
  const tailLength = maxLength - headLength;
  let headEnd = headLength;
  const headBreak = text.lastIndexOf("\n", headLength);
  if (headBreak > headLength * 0.8) headEnd = headBreak + 1;
  let tailStart = text.length - tailLength;
  const tailBreak = text.indexOf("\n", tailStart);
  if (tailBreak !== -1 && tailBreak < tailStart + tailLength * 0.2) tailStart = tailBreak + 1;
  headEnd = pairSafeEnd(text, headEnd);
  tailStart = pairSafeStart(text, tailStart);
  // Counted in place: splitting a long output's omitted middle made one string per line.
  let omittedLines = 0;
  for (let at = text.indexOf("\n", headEnd); at !== -1 && at < tailStart; at = text.indexOf("\n", at + 1)) omittedLines++;
  // Worded as the library words it now (counts agree with their number); the cut is the old one.
  const marker = `\n[... ${countOf(tailStart - headEnd, "character")} (${countOf(omittedLines, "line")}) omitted; showing the first ${headEnd} and the last ${text.length - tailStart} characters ...]\n`;
  return text.slice(0, headEnd) + marker + text.slice(tailStart);
}
