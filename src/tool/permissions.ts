// The permission types a handler sees in its context (`ctx.permissions`). They live in the tool
// layer so that tool/ needs nothing from policy/; policy/permission-config.ts resolves them.

/**
 * How far a run's tools may reach.
 *
 * @public
 */
export type SandboxScope = "unrestricted" | "local" | "workspace";
/**
 * When a run asks a human before a tool call.
 *
 * @public
 */
export type ApprovalPolicy = "none" | "destructive" | "all";

/**
 * The permissions of a run. Both axes are independent.
 *
 * @public
 */
export interface PermissionConfig {
  /**
   * `unrestricted`: no limits. `local`: files unrestricted, no network for processes.
   * `workspace`: files and processes confined to `workspace`.
   * @defaultValue `"unrestricted"`
   */
  readonly sandbox?: SandboxScope;
  /**
   * `none`: never ask. `destructive`: ask before every mutating call. `all`: ask before every call.
   * @defaultValue `"none"`
   */
  readonly approval?: ApprovalPolicy;
  /** The workspace directory; required when `sandbox` is `"workspace"`. */
  readonly workspace?: string;
}

/**
 * A {@link PermissionConfig} with every default applied.
 *
 * @public
 */
export interface ResolvedPermissionConfig {
  /** The sandbox scope. */
  readonly sandbox: SandboxScope;
  /** The approval policy. */
  readonly approval: ApprovalPolicy;
  /** The workspace directory, if any. */
  readonly workspace: string | undefined;
}
