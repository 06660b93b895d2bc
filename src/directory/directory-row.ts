/**
 * What every source of the organization's structure yields (issue 34): the directory file (CSV or JSON lines) and
 * SCIM provisioning both come down to these rows, and one model is built from them.
 */

/** One identity in one team (or in none), with its attributes, as a source states it. */
export interface DirectoryRow {
  /** How the history store keys identities: `u:<email lowercased>` or `s:<service account name>` (case kept). */
  identity: string;
  /** The team path's levels, top first (`Engineering/Platform/Infra` → three); empty: the identity is in no team. */
  team: string[];
  /** The identity's primary team, for chargeback: the first row of an identity is primary unless one says so. */
  primary?: boolean;
  /** `cost_center`, `manager`, `location` and any other column, by column name; empty values are left out. */
  attributes: Record<string, string>;
  /** Inclusive `YYYY-MM-DD` bounds from an HR export with effective dates; absent: holds until a change is recorded. */
  validFrom?: string;
  validTo?: string;
}

/** Where a directory came from, shown in answers and `get_teams`. */
export interface DirectorySource {
  kind: 'file' | 'scim';
  /** The file's path as given, or `scim` (with tenants, `scim:<tenant>`). */
  name: string;
  /** When this version was read or last changed by SCIM (ISO 8601 UTC). */
  loadedAt: string;
}

/** One whole version of a directory, as a source hands it over. */
export interface DirectorySnapshot {
  rows: DirectoryRow[];
  source: DirectorySource;
}

/** The group of identities that no row places. */
export const UNASSIGNED = '(unassigned)';
/** Where groups under `--min-group-size` go when even their top level is too small. */
export const SMALL_GROUPS = '(small groups)';
