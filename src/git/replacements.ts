import { createHash } from "node:crypto";
import path from "node:path";
import { configFalse, configValue } from "./config-value.js";
import type { FileAccess } from "./file-access.js";
import type { Replacements } from "./objects/replacing-object-store.js";

const FULL_ID = /^[0-9a-f]{40}$/;
const REPLACE = "refs/replace/";

/** `refs/replace/<id>` → replacement, loose refs over packed ones (as git reads any ref). */
async function replaceRefs(files: FileAccess, commondir: string): Promise<Map<string, string>> {
  const objects = new Map<string, string>();
  const packed = await files.readText(path.join(commondir, "packed-refs"));
  // Most repositories have no replace refs: the packed ones are parsed only when the text names one.
  if (packed?.includes(` ${REPLACE}`)) {
    for (const line of packed.split("\n")) {
      const [oid, name] = line.trim().split(" ");
      const replaced = name?.startsWith(REPLACE) ? name.slice(REPLACE.length) : undefined;
      if (oid !== undefined && FULL_ID.test(oid) && replaced !== undefined && FULL_ID.test(replaced)) objects.set(replaced, oid);
    }
  }
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
  const hash = createHash("sha1");
  for (const [oid, replacement] of [...replacements.objects].sort()) hash.update(`r${oid}${replacement}`);
  for (const [oid, parents] of [...replacements.grafts].sort()) hash.update(`g${oid}${parents.join("")};`);
  return { replacements, fingerprint: hash.digest("hex") };
}
