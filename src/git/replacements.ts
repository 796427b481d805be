import path from "node:path";
import { configFalse, configValue } from "./config-value.js";
import type { FileAccess } from "./file-access.js";
import type { Replacements } from "./objects/replacing-object-store.js";

const FULL_ID = /^[0-9a-f]{40}$/;
const REPLACE = "refs/replace/";

/** The `refs/replace/` entries of a `packed-refs` text: replaced id → replacement. */
function packedReplaceRefs(packed: string | undefined): ReadonlyMap<string, string> {
  const objects = new Map<string, string>();
  // Most repositories have no replace refs: the packed ones are parsed only when the text names one.
  if (packed?.includes(` ${REPLACE}`)) {
    for (const line of packed.split("\n")) {
      const [oid, name] = line.trim().split(" ");
      const replaced = name?.startsWith(REPLACE) ? name.slice(REPLACE.length) : undefined;
      if (oid !== undefined && FULL_ID.test(oid) && replaced !== undefined && FULL_ID.test(replaced)) objects.set(replaced, oid);
    }
  }
  return objects;
}

/** How many `packed-refs` scans are remembered (one per repository; each is usually an empty map). */
const SCANS_KEPT = 64;

/**
 * `packed-refs` path → the identity of the file scanned and its replace refs. Every call asks for
 * replace refs and a repository with 300k tags has an 18 MB `packed-refs`: read and searched each
 * call, it took a warm call from 0.4 ms to 23-28 ms. An unchanged file (same device, inode, size,
 * mtime and ctime in nanoseconds) now costs one stat; a changed one is scanned again.
 */
const packedScans = new Map<string, { readonly identity: string; readonly objects: ReadonlyMap<string, string> }>();

/** The packed replace refs, rescanned only when `packed-refs` changed since the last scan. */
async function packedReplacements(files: FileAccess, commondir: string): Promise<ReadonlyMap<string, string>> {
  const file = path.join(commondir, "packed-refs");
  const identity = await files.identity?.(file);
  if (identity === undefined) return packedReplaceRefs(await files.readText(file));
  const known = packedScans.get(file);
  if (known?.identity === identity) return known.objects;
  const objects = packedReplaceRefs(await files.readText(file));
  packedScans.delete(file);
  if (packedScans.size >= SCANS_KEPT) packedScans.delete(packedScans.keys().next().value as string);
  packedScans.set(file, { identity, objects });
  return objects;
}

/** `refs/replace/<id>` → replacement, loose refs over packed ones (as git reads any ref). */
async function replaceRefs(files: FileAccess, commondir: string): Promise<Map<string, string>> {
  const objects = new Map(await packedReplacements(files, commondir));
  for (const name of await files.list(path.join(commondir, "refs", "replace"))) {
    if (!FULL_ID.test(name)) continue;
    const oid = (await files.readText(path.join(commondir, "refs", "replace", name)))?.trim();
    if (oid !== undefined && FULL_ID.test(oid)) objects.set(name, oid);
  }
  return objects;
}

/** `info/grafts`: `<commit> [<parent>...]` per line; lines git would reject ("bad graft data") are skipped. */
async function grafts(files: FileAccess, commondir: string): Promise<Map<string, readonly string[]>> {
  const found = new Map<string, readonly string[]>();
  for (const line of ((await files.readText(path.join(commondir, "info", "grafts"))) ?? "").split("\n")) {
    const ids = line.trim().split(/\s+/);
    const [commit, ...parents] = ids;
    if (line.startsWith("#") || commit === undefined || !ids.every((id) => FULL_ID.test(id))) continue;
    found.set(commit, parents);
  }
  return found;
}

/**
 * The repository's replace refs (unless `core.useReplaceRefs` is false) and grafts, with a fingerprint that tells one set from another
 * (objects read under one set must not be answered from a cache filled under another); `undefined`
 * when it has neither, the usual case.
 */
export async function readReplacements(
  files: FileAccess,
  commondir: string,
): Promise<{ readonly replacements: Replacements; readonly fingerprint: string } | undefined> {
  let objects = await replaceRefs(files, commondir);
  // `core.useReplaceRefs = false` turns replace refs off (not grafts); config is read only when there are some.
  if (objects.size > 0) {
    const config = await files.readText(path.join(commondir, "config"));
    if (configFalse(configValue(config, "core", "usereplacerefs"))) objects = new Map();
  }
  const replacements = { objects, grafts: await grafts(files, commondir) };
  if (replacements.objects.size === 0 && replacements.grafts.size === 0) return undefined;
  // Loaded here, in the rare repository that has replacements: `node:crypto` costs a new process
  // about 3 ms of CPU to load, and nothing else a git tool call runs needs it.
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha1");
  for (const [oid, replacement] of [...replacements.objects].sort()) hash.update(`r${oid}${replacement}`);
  for (const [oid, parents] of [...replacements.grafts].sort()) hash.update(`g${oid}${parents.join("")};`);
  return { replacements, fingerprint: hash.digest("hex") };
}
