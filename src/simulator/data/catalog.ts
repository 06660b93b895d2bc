/** The fixed vocabulary of the synthetic organization: names, editors, languages, models, products. */

export const FIRST_NAMES = [
  'ada',
  'alan',
  'alice',
  'amara',
  'andre',
  'anika',
  'arjun',
  'ben',
  'bianca',
  'carlos',
  'chen',
  'chloe',
  'dana',
  'daniel',
  'divya',
  'elena',
  'emeka',
  'emma',
  'farah',
  'felix',
  'fatima',
  'gabriel',
  'grace',
  'hana',
  'hugo',
  'ines',
  'isaac',
  'ivan',
  'jamal',
  'jana',
  'jin',
  'joao',
  'julia',
  'kai',
  'kenji',
  'lara',
  'leo',
  'lina',
  'luca',
  'maya',
  'marek',
  'maria',
  'mateo',
  'mei',
  'mohamed',
  'nadia',
  'naomi',
  'nikhil',
  'noah',
  'olga',
  'omar',
  'oskar',
  'priya',
  'quinn',
  'rafael',
  'rania',
  'ravi',
  'rosa',
  'sam',
  'sara',
  'sean',
  'sofia',
  'sven',
  'tariq',
  'tess',
  'tomas',
  'uma',
  'valentina',
  'victor',
  'wei',
  'yara',
  'yusuf',
  'zoe',
  'zhang',
  'aiko',
  'bruno',
  'clara',
  'dmitri',
] as const;

export const LAST_NAMES = [
  'adeyemi',
  'alvarez',
  'andersen',
  'bauer',
  'becker',
  'bianchi',
  'brown',
  'castillo',
  'chen',
  'costa',
  'dubois',
  'dvorak',
  'eriksen',
  'fischer',
  'garcia',
  'gupta',
  'haddad',
  'hansen',
  'hernandez',
  'ito',
  'ivanova',
  'jansen',
  'johnson',
  'kaur',
  'kim',
  'kowalski',
  'kumar',
  'larsen',
  'lee',
  'lopez',
  'martin',
  'mensah',
  'moreau',
  'muller',
  'nakamura',
  'nguyen',
  'novak',
  'okafor',
  'oliveira',
  'park',
  'patel',
  'petrov',
  'popescu',
  'quispe',
  'rossi',
  'sato',
  'schmidt',
  'silva',
  'singh',
  'smith',
  'sousa',
  'suzuki',
  'tanaka',
  'taylor',
  'tran',
  'van-dijk',
  'wagner',
  'wang',
  'weber',
  'williams',
  'wong',
  'yamamoto',
  'yilmaz',
  'zhang',
  'zielinski',
] as const;

export const SERVICE_ACCOUNTS = [
  'ci-pipeline',
  'nightly-refactor',
  'docs-generator',
  'release-automation',
  'dependency-updater',
  'security-scanner',
  'warehouse-backfill',
  'test-flake-hunter',
] as const;
/** This service account's monthly batch job produces the token count above 2^53−1 the spec allows for. */
export const GIANT_TOKEN_ACCOUNT = 'warehouse-backfill';

export const BOTS = ['code-review-bot', 'issue-triage-bot'] as const;

export const IDE_EDITORS = ['VS Code', 'JetBrains'] as const;
export const CLI_EDITOR = 'CLI';
export const UNKNOWN = 'Unknown';

export const LANGUAGES = [
  'TypeScript',
  'Python',
  'Go',
  'Java',
  'Kotlin',
  'Rust',
  'C++',
  'C#',
  'Ruby',
  'PHP',
  'Swift',
  'SQL',
  'Shell',
  UNKNOWN,
] as const;
export const LANGUAGE_WEIGHTS = [22, 20, 9, 10, 4, 4, 5, 5, 3, 3, 2, 5, 4, 4];

export interface ModelInfo {
  name: string;
  /** USD per million tokens, which is also micro-USD per token. */
  price: { input: number; output: number; cacheRead: number; cacheWrite: number };
  weight: number;
}

export const MODELS: readonly ModelInfo[] = [
  { name: 'claude-haiku-4-5', price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, weight: 2 },
  { name: 'claude-opus-4-1', price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }, weight: 1 },
  { name: 'claude-sonnet-4-5', price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, weight: 6 },
  { name: 'gemini-2-5-pro', price: { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.625 }, weight: 1.5 },
  { name: 'gpt-5', price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 }, weight: 2.5 },
  // Weight 0 and last: nobody picks it; a few people take it up NEW_MODEL_DAYS before the anchor (activity.ts).
  { name: 'claude-opus-4-5', price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }, weight: 0 },
];

/**
 * Planted cases for find_anomalies, relative to the anchor day so every organization (the demo's too) has
 * them: a service account burns SPIKE.factor times its usual work on one day, and a new model appears.
 */
export const SPIKE = { account: 'nightly-refactor', daysBeforeAnchor: 4, factor: 20 } as const;
export const NEW_MODEL = { name: 'claude-opus-4-5', daysBeforeAnchor: 5, everyNth: 40 } as const;

export const COMPUTE_RESOURCE = 'remote-sandbox-vcpu-hours';
/** micro-USD per vCPU-hour. */
export const COMPUTE_PRICE_MICROS = 48_000;

export const PRODUCTS = ['CLI Agent', 'Chat', 'Code Review', 'IDE Agent', 'Remote Agent'] as const;
export type Product = (typeof PRODUCTS)[number];

export const EXPERTS = [
  { id: 'exp-docs-writer', name: 'Docs Writer' },
  { id: 'exp-migration-assistant', name: 'Migration Assistant' },
  { id: 'exp-security-reviewer', name: 'Security Reviewer' },
  { id: 'exp-test-author', name: 'Test Author' },
] as const;
