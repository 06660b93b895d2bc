import { BOTS, FIRST_NAMES, IDE_EDITORS, LANGUAGE_WEIGHTS, LAST_NAMES, MODELS, SERVICE_ACCOUNTS } from './catalog.js';
import { Rng, draw } from '../random.js';

export type IdentityKind = 'user' | 'service_account';

export interface Identity {
  kind: IdentityKind;
  /** The email (users) or the service account name. */
  id: string;
  joinDay: number;
  /** First day the identity is no longer a member; Infinity while it still is. */
  leaveDay: number;
  /** Probability of activity on a working day. */
  activity: number;
  intensity: number;
  editor: (typeof IDE_EDITORS)[number] | 'CLI';
  /** Share of agent work done in the CLI rather than the IDE. */
  cliShare: number;
  usesRemoteAgent: boolean;
  languages: readonly [number, number];
  languageShare: number;
  models: readonly [number, number];
  modelShare: number;
  /** Whether the identity's first model runs on a customer-provided key. */
  byok: boolean;
  expertAffinity: number;
}

export interface Organization {
  seed: number;
  domain: string;
  /** "Today" when the organization was generated; every relative date below hangs off it. */
  anchorDay: number;
  foundedDay: number;
  /** Remote agent metrics are "retained for historical data only": none after this day. */
  remoteAgentSunsetDay: number;
  /** Sorted in the API's output order: users by email, then service accounts by name. */
  identities: readonly Identity[];
  byEmail: ReadonlyMap<string, number>;
  byServiceAccount: ReadonlyMap<string, number>;
  bots: readonly string[];
}

export interface OrganizationOptions {
  users: number;
  seed: number;
  anchorDay: number;
  domain?: string;
}

const HISTORY_DAYS = 3 * 365;

function normal(rng: Rng): number {
  const u = Math.max(rng.next(), 1e-9);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

function secondIndex(rng: Rng, weights: readonly number[], first: number, chance: number): number {
  if (rng.next() >= chance) return -1;
  const second = rng.weighted(weights);
  return second === first ? -1 : second;
}

function makeUser(rng: Rng, email: string, anchorDay: number): Identity {
  const joinOffset = Math.floor(HISTORY_DAYS * Math.pow(rng.next(), 1.6));
  const joinDay = anchorDay - joinOffset;
  const leaves = rng.next() < 0.04 && joinOffset > 60;
  const leaveDay = leaves ? anchorDay - 3 - rng.int(Math.min(400, joinOffset - 30)) : Infinity;
  const cliUser = rng.next() < 0.45;
  const lang = rng.weighted(LANGUAGE_WEIGHTS);
  const model = rng.weighted(MODELS.map((m) => m.weight));
  return {
    kind: 'user',
    id: email,
    joinDay,
    leaveDay,
    activity: 0.35 + 0.6 * Math.pow(rng.next(), 0.6),
    intensity: Math.min(6, Math.exp(normal(rng) * 0.55)),
    editor: rng.next() < 0.08 ? 'CLI' : rng.next() < 0.62 ? 'VS Code' : 'JetBrains',
    cliShare: cliUser ? 0.15 + 0.6 * rng.next() : 0,
    usesRemoteAgent: rng.next() < 0.3,
    languages: [lang, secondIndex(rng, LANGUAGE_WEIGHTS, lang, 0.7)],
    languageShare: 0.55 + 0.35 * rng.next(),
    models: [
      model,
      secondIndex(
        rng,
        MODELS.map((m) => m.weight),
        model,
        0.5,
      ),
    ],
    modelShare: 0.6 + 0.3 * rng.next(),
    byok: rng.next() < 0.12,
    expertAffinity: rng.next() < 0.35 ? 0.1 + 0.4 * rng.next() : 0,
  };
}

/** A team onboarded together: members who join on one day, this many days before the anchor day. */
const COHORT_DAYS_AGO = 10;
const COHORT_SHARE = 0.05;
/** Long-time members who leave within the last weeks before the anchor day. */
const LEAVER_SHARE = 0.025;
const LEAVE_WITHIN = 50;

/**
 * The planted cases of adoption and inactivity, fixed relative to the anchor day so that the demo shows them:
 * a cohort that starts late, and people who stop. Drawn by hash (not from the sequence), so every other
 * member stays as generated.
 */
function plant(user: Identity, seed: number, n: number, anchorDay: number): Identity {
  if (user.leaveDay !== Infinity) return user;
  const r = draw(seed, n, -1, 0);
  if (r < COHORT_SHARE) return { ...user, joinDay: anchorDay - COHORT_DAYS_AGO };
  if (r >= 1 - LEAVER_SHARE && anchorDay - user.joinDay > 120)
    return { ...user, leaveDay: anchorDay - 7 - Math.floor(draw(seed, n, -1, 1) * LEAVE_WITHIN) };
  return user;
}

function makeServiceAccount(rng: Rng, name: string, anchorDay: number): Identity {
  const lang = rng.weighted(LANGUAGE_WEIGHTS);
  const model = rng.weighted(MODELS.map((m) => m.weight));
  return {
    kind: 'service_account',
    id: name,
    joinDay: anchorDay - 200 - rng.int(HISTORY_DAYS - 200),
    leaveDay: Infinity,
    activity: 0.85 + 0.15 * rng.next(),
    intensity: 1 + 3 * rng.next(),
    editor: 'CLI',
    cliShare: 1,
    usesRemoteAgent: false,
    languages: [lang, -1],
    languageShare: 1,
    models: [model, -1],
    modelShare: 1,
    byok: rng.next() < 0.25,
    expertAffinity: 0,
  };
}

export function generateOrganization(options: OrganizationOptions): Organization {
  const rng = new Rng(options.seed);
  const domain = options.domain ?? 'northwind.example';
  const taken = new Set<string>();
  const identities: Identity[] = [];
  for (let n = 0; n < options.users; n++) {
    const base = `${rng.pick(FIRST_NAMES)}.${rng.pick(LAST_NAMES)}`;
    let local = base;
    for (let k = 2; taken.has(local); k++) local = `${base}${k}`;
    taken.add(local);
    identities.push(plant(makeUser(rng, `${local}@${domain}`, options.anchorDay), options.seed, n, options.anchorDay));
  }
  for (const name of SERVICE_ACCOUNTS) identities.push(makeServiceAccount(rng, name, options.anchorDay));
  identities.sort((a, b) => (a.kind === b.kind ? (a.id < b.id ? -1 : 1) : a.kind === 'user' ? -1 : 1));

  const byEmail = new Map<string, number>();
  const byServiceAccount = new Map<string, number>();
  identities.forEach((identity, index) => {
    if (identity.kind === 'user') byEmail.set(identity.id.toLowerCase(), index);
    else byServiceAccount.set(identity.id, index);
  });
  return {
    seed: options.seed,
    domain,
    anchorDay: options.anchorDay,
    foundedDay: options.anchorDay - HISTORY_DAYS,
    remoteAgentSunsetDay: options.anchorDay - 420,
    identities,
    byEmail,
    byServiceAccount,
    bots: BOTS,
  };
}

export function isMember(identity: Identity, day: number): boolean {
  return day >= identity.joinDay && day < identity.leaveDay;
}

/** Looks up a current or former member by email (case-insensitive) or service account name (case-sensitive). */
export function findIdentity(org: Organization, kind: IdentityKind, id: string): number | undefined {
  return kind === 'user' ? org.byEmail.get(id.toLowerCase()) : org.byServiceAccount.get(id);
}
