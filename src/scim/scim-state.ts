import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * What SCIM provisioning has told us: users and groups as the identity provider wrote them, with ids we gave, kept
 * in memory with indexes for the look-ups IdPs make (userName, externalId, displayName) and saved to a JSON file
 * (written whole, to a temporary name then renamed, at most once a second) so that a restart keeps it.
 */

export type ScimRecord = Record<string, unknown> & {
  id: string;
  meta: { created: string; lastModified: string };
};
export interface ScimMember {
  value: string;
  display?: string;
}

const SAVE_AFTER_MS = 500;

export class ScimState {
  readonly users = new Map<string, ScimRecord>();
  readonly groups = new Map<string, ScimRecord>();
  private readonly userNames = new Map<string, string>();
  private readonly externalIds = new Map<string, string>();
  private readonly displayNames = new Map<string, string>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** Called after every change (the service turns it, debounced, into the directory). */
  onChange: () => void = () => {};

  constructor(private readonly file?: string) {
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { users: ScimRecord[]; groups: ScimRecord[] };
      for (const u of saved.users) this.putUser(u, false);
      for (const g of saved.groups) this.putGroup(g, false);
    }
  }

  userByName = (userName: string) => this.users.get(this.userNames.get(userName.toLowerCase()) ?? '');
  userByExternalId = (externalId: string) => this.users.get(this.externalIds.get(externalId) ?? '');
  groupByName = (displayName: string) => this.groups.get(this.displayNames.get(displayName.toLowerCase()) ?? '');

  /** A new record's id and meta, or the kept ones of the record it replaces. */
  stamp(body: Record<string, unknown>, existing?: ScimRecord): ScimRecord {
    const now = new Date().toISOString();
    const { meta: _m, id: _i, ...rest } = body;
    return {
      ...rest,
      id: existing?.id ?? randomUUID(),
      meta: { created: existing?.meta.created ?? now, lastModified: now },
    };
  }

  putUser(user: ScimRecord, changed = true): ScimRecord {
    const old = this.users.get(user.id);
    if (old) {
      this.userNames.delete(String(old.userName).toLowerCase());
      if (old.externalId !== undefined) this.externalIds.delete(String(old.externalId));
    }
    this.users.set(user.id, user);
    this.userNames.set(String(user.userName).toLowerCase(), user.id);
    if (user.externalId !== undefined) this.externalIds.set(String(user.externalId), user.id);
    if (changed) this.changed();
    return user;
  }

  putGroup(group: ScimRecord, changed = true): ScimRecord {
    const old = this.groups.get(group.id);
    if (old) this.displayNames.delete(String(old.displayName).toLowerCase());
    this.groups.set(group.id, group);
    this.displayNames.set(String(group.displayName).toLowerCase(), group.id);
    if (changed) this.changed();
    return group;
  }

  deleteUser(id: string): boolean {
    const old = this.users.get(id);
    if (!old) return false;
    this.users.delete(id);
    this.userNames.delete(String(old.userName).toLowerCase());
    if (old.externalId !== undefined) this.externalIds.delete(String(old.externalId));
    // A deleted user leaves every group it was in.
    for (const g of this.groups.values()) {
      const members = (g.members as ScimMember[] | undefined) ?? [];
      if (members.some((m) => m.value === id)) g.members = members.filter((m) => m.value !== id);
    }
    this.changed();
    return true;
  }

  deleteGroup(id: string): boolean {
    const old = this.groups.get(id);
    if (!old) return false;
    this.groups.delete(id);
    this.displayNames.delete(String(old.displayName).toLowerCase());
    this.changed();
    return true;
  }

  private changed(): void {
    this.onChange();
    if (!this.file || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.save(), SAVE_AFTER_MS);
    this.saveTimer.unref();
  }

  /** Writes the state now (also what close does). */
  save(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ users: [...this.users.values()], groups: [...this.groups.values()] }), {
      mode: 0o600,
    });
    renameSync(temp, this.file);
  }
}
