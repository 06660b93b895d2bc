import type { Caller } from '../auth/caller.js';
import type { Config } from '../config/config.js';
import type { LoginCredential } from '../login/login-credential.js';
import { TOOLS } from '../tools/index.js';
import { inToolsets } from '../tools/toolsets.js';
import type { ToolDef } from '../tools/types.js';

/** A tool writes upstream state when its annotations say it is not read-only: said once, by the tool. */
export const writes = (tool: Pick<ToolDef, 'annotations'>): boolean => !tool.annotations.readOnlyHint;

/**
 * Why a caller may not see or call a tool. The first that applies: 'role' before 'read-only', so that a read
 * caller asking for a write is told which scope would let it (see HttpAuth.allows).
 */
export type Withheld =
  /** No tool has this name. */
  | 'unknown'
  /** An authenticated HTTP caller whose role is read. */
  | 'role'
  /** --read-only. */
  | 'read-only'
  /** The personal login in use has no write scope (yet): the tool is registered, shown when one with it is in use. */
  | 'scope'
  /** This server answers one call of another tool. */
  | 'one-call';

/** What decides the inventory: the server's deps, or the part of them that matters here. */
export interface InventoryInputs {
  tools?: readonly ToolDef[];
  config: Pick<Config, 'readOnly' | 'toolsets'>;
  caller?: Pick<Caller, 'role'>;
  login?: Pick<LoginCredential, 'canWrite'>;
}

export interface ToolInventory {
  /** The tools a server for this caller registers, in the order tools/list shows them. */
  readonly registered: readonly ToolDef[];
  /** The server answers one tools/call of one tool, and needs nothing else (no prompts, resources or views). */
  readonly oneCall: boolean;
  /** Why the caller may not see or call `name` now, or undefined when it may. */
  withheld(name: string): Withheld | undefined;
  /** Whether the caller may change anything upstream now: the budget view's controls and the budget prompt follow it. */
  writable(): boolean;
}

/**
 * The one answer to "may this caller see or call this tool", from --toolsets (a tool outside them does not
 * exist for this server: 'unknown'), the tools' annotations, --read-only, the
 * HTTP caller's role, the login's scopes and, for an HTTP request that is exactly one tools/call, that tool
 * (`onlyTool`; when it names no tool this caller may have, the server has everything, and the SDK answers).
 */
export function toolInventory(inputs: InventoryInputs, onlyTool?: string): ToolInventory {
  const tools = (inputs.tools ?? TOOLS).filter((def) => inToolsets(def, inputs.config.toolsets));
  const byName = new Map(tools.map((def) => [def.name, def]));
  /** Reasons that hold for the server's whole life: such a tool is not even registered. */
  const forGood = (def: ToolDef): Withheld | undefined => {
    if (!writes(def)) return undefined;
    if (inputs.caller?.role === 'read') return 'role';
    if (inputs.config.readOnly) return 'read-only';
    return undefined;
  };
  const only = onlyTool === undefined ? undefined : byName.get(onlyTool);
  const oneCall = only !== undefined && forGood(only) === undefined;
  const withheld = (name: string): Withheld | undefined => {
    const def = byName.get(name);
    if (!def) return 'unknown';
    const reason = forGood(def);
    if (reason) return reason;
    if (oneCall && def !== only) return 'one-call';
    if (writes(def) && inputs.login && !inputs.login.canWrite()) return 'scope';
    return undefined;
  };
  return {
    registered: oneCall ? [only] : tools.filter((def) => forGood(def) === undefined),
    oneCall,
    withheld,
    writable: () => tools.some((def) => writes(def) && withheld(def.name) === undefined),
  };
}
