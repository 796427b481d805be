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

type Parameter = { name: string; description?: string | undefined };

/**
 * The parameters of `schema` and of its nested objects (`depth` levels), in schema order, into
 * `out`. A loop over the keys into one array: `Object.entries`, an array per level and spread
 * pushes were half of what indexing 100,000 tools allocated.
 */
function parametersOf(schema: JsonSchema, depth: number, out: Parameter[] = []): Parameter[] {
  const properties = schema.properties;
  if (properties === undefined || typeof properties !== "object" || properties === null || depth === 0) return out;
  const names = Object.keys(properties);
  for (let k = 0; k < names.length; k++) {
    const name = names[k] as string;
    const property = (properties as Record<string, unknown>)[name] as JsonSchema | null;
    if (typeof property !== "object" || property === null) continue;
    out.push({ name, description: typeof property.description === "string" ? property.description : undefined });
    parametersOf(property, depth - 1, out);
    const items = property.items;
    if (typeof items === "object" && items !== null) parametersOf(items as JsonSchema, depth - 1, out);
  }
  return out;
}
