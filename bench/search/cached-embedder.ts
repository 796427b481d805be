import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Embedder } from "../../src/index.js";

/**
 * Wraps an embedder with a file of every vector it computed (queries included), so that reruns of
 * the bench embed only new texts. The file is a cache: delete it at will.
 */
export function fileCachedEmbedder(inner: Embedder, path: string): Embedder {
  const vectors = new Map<string, number[]>();
  if (existsSync(path)) {
    for (const line of readFileSync(path, "utf8").split("\n")) {
      if (line === "") continue;
      const [key, vector] = JSON.parse(line) as [string, number[]];
      vectors.set(key, vector);
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  const keyOf = (text: string) => createHash("sha256").update(`${inner.id}\n${text}`).digest("base64url");
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    ...(inner.batchSize === undefined ? {} : { batchSize: inner.batchSize }),
    async embed(texts, options) {
      const missing = [...new Set(texts.filter((text) => !vectors.has(keyOf(text))))];
      if (missing.length > 0) {
        const computed = await inner.embed(missing, options);
        missing.forEach((text, index) => {
          const vector = Array.from(computed[index] as ArrayLike<number>, (value) => Math.round(value * 1e6) / 1e6);
          vectors.set(keyOf(text), vector);
          appendFileSync(path, `${JSON.stringify([keyOf(text), vector])}\n`);
        });
      }
      return texts.map((text) => vectors.get(keyOf(text)) as number[]);
    },
  };
}
