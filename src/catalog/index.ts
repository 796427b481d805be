// The default catalog builder: one call that assembles the core tools, the deferred groups whose
// dependencies the host gives, find_tool and the run policy (the spec's
// NewDefaultRegistryWithOptions). Node-only, like the tools and host subpaths it builds on.

export {
  type CatalogGroupState,
  createDefaultCatalog,
  type DefaultCatalog,
  type DefaultCatalogMcpOptions,
  type DefaultCatalogOptions,
} from "./create-default-catalog.js";
