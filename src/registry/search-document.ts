import type { SearchDocument } from "../search/search-index.js";
import type { JsonSchema } from "../tool/json-schema.js";
import type { ToolDescriptor } from "../tool/tool-descriptor.js";

/**
 * What `find_tool` searches of a tool: name, title, description, tags, parameters; `id` is its key
 * in the index (one object per tool: a registry indexing 100,000 tools copied each to add it).
 */
export function searchDocumentOf(descriptor: ToolDescriptor, id?: string): SearchDocument {
  return {
    id: id ?? descriptor.name,
    name: descriptor.name,
    description: descriptor.description,
    title: descriptor.annotations.title,
    tags: descriptor.tags,
    parameters: parametersOf(descriptor.inputSchema, 2),
  };
}

function parametersOf(schema: JsonSchema, depth: number): { name: string; description?: string | undefined }[] {
  const properties = schema.properties;
  if (properties === undefined || typeof properties !== "object" || depth === 0) return [];
  const out: { name: string; description?: string | undefined }[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property !== "object" || property === null) continue;
    out.push({ name, description: typeof property.description === "string" ? property.description : undefined });
    out.push(...parametersOf(property, depth - 1));
    const items = property.items;
    if (typeof items === "object" && items !== null) out.push(...parametersOf(items as JsonSchema, depth - 1));
  }
  return out;
}
