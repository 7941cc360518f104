/**
 * A migration written once for both databases: its change built with Kysely's schema builder,
 * compiled (never executed by Kysely) to each dialect's SQL and run by the store's own runners, in
 * their transactions. Raw SQL only where the dialects truly differ (full-text search, triggers),
 * side by side in the migration's own file.
 *
 * A new migration is a file of its own, `NNN-what-it-does.ts` in this folder, exporting a
 * `PortableMigration`, and listed in schema.ts.
 */
import { createRequire } from 'node:module';
import type { Compilable, Kysely } from 'kysely';

export type Dialect = 'sqlite' | 'postgresql';

/** The builder a migration is given: it only compiles. */
export type SchemaBuilder = Kysely<unknown>;

export interface PortableMigration {
  version: number;
  name: string;
  /** The statements, built once; each compiled for the dialect it runs on. */
  build(db: SchemaBuilder, dialect: Dialect): Compilable[];
  /** Statements written per dialect, run after the built ones (where the dialects truly differ). */
  raw?: Record<Dialect, string>;
  /** SQLite: a table others reference is rebuilt, so foreign keys are off while it runs. */
  rebuildsTables?: boolean;
}

/**
 * Kysely, loaded from node_modules only when a portable migration is compiled (once per upgrade):
 * it stays outside the bundles, which every hook reads on every start.
 */
function kysely(): typeof import('kysely') {
  const require = createRequire(typeof __filename === 'string' ? __filename : `${process.cwd()}/`);
  return require('kysely') as typeof import('kysely');
}

const builders: Partial<Record<Dialect, SchemaBuilder>> = {};

/** A builder that compiles for `dialect` and never executes (its driver does nothing). */
function builder(dialect: Dialect): SchemaBuilder {
  const made = builders[dialect];
  if (made) return made;
  const k = kysely();
  const built = new k.Kysely<unknown>({
    dialect: {
      createAdapter: () => (dialect === 'sqlite' ? new k.SqliteAdapter() : new k.PostgresAdapter()),
      createDriver: () => new k.DummyDriver(),
      createIntrospector: (db) =>
        dialect === 'sqlite' ? new k.SqliteIntrospector(db) : new k.PostgresIntrospector(db),
      createQueryCompiler: () =>
        dialect === 'sqlite' ? new k.SqliteQueryCompiler() : new k.PostgresQueryCompiler(),
    },
  });
  builders[dialect] = built;
  return built;
}

/**
 * A migration as one SQL text for `dialect`. A schema statement takes no parameters: one that
 * would (a value in a default, say) must be written with `sql.lit`, and is refused otherwise.
 */
export function compileMigration(migration: PortableMigration, dialect: Dialect): string {
  const statements = migration.build(builder(dialect), dialect).map((statement) => {
    const compiled = statement.compile();
    if (compiled.parameters.length > 0)
      throw new Error(
        `migration ${migration.version}: a schema statement with parameters (${compiled.sql}); write its values with sql.lit`,
      );
    return `${compiled.sql};`;
  });
  const raw = migration.raw?.[dialect]?.trim();
  return [...statements, ...(raw ? [raw] : [])].join('\n');
}
