/**
 * The ladder's tables in PostgreSQL (store-pg.ts), beside the records in their schema: the SQLite
 * store's tables (store.ts) prefixed `ladder_`, versioned in `ladder_schema_version`.
 */

export const PG_LADDER_MIGRATIONS: readonly string[] = [
  // As the SQLite schema, with BIGINT times, DOUBLE PRECISION ratings (a rating reads back as the
  // number written), binary text order (COLLATE "C", as SQLite sorts) and a serial history key.
  `CREATE TABLE ladder_entries (
     id TEXT COLLATE "C" PRIMARY KEY,
     seq INTEGER NOT NULL UNIQUE,
     name TEXT COLLATE "C" NOT NULL,
     name_key TEXT NOT NULL,
     grp TEXT NOT NULL,
     code TEXT NOT NULL UNIQUE,
     reservation TEXT NOT NULL UNIQUE,
     page_token TEXT NOT NULL UNIQUE,
     created_at BIGINT NOT NULL,
     renewed_at BIGINT,
     revoked_at BIGINT
   );
   CREATE UNIQUE INDEX ladder_entries_name ON ladder_entries (name_key) WHERE revoked_at IS NULL;
   CREATE TABLE ladder_seasons (
     id TEXT PRIMARY KEY,
     game TEXT NOT NULL,
     number INTEGER NOT NULL,
     name TEXT NOT NULL,
     started_at BIGINT NOT NULL,
     frozen_at BIGINT,
     archived_at BIGINT,
     UNIQUE (game, number)
   );
   CREATE UNIQUE INDEX ladder_seasons_current ON ladder_seasons (game) WHERE archived_at IS NULL;
   CREATE TABLE ladder_ratings (
     game TEXT NOT NULL,
     season TEXT NOT NULL REFERENCES ladder_seasons (id),
     entry_id TEXT COLLATE "C" NOT NULL REFERENCES ladder_entries (id),
     rating DOUBLE PRECISION NOT NULL,
     rd DOUBLE PRECISION NOT NULL,
     vol DOUBLE PRECISION NOT NULL,
     games INTEGER NOT NULL,
     PRIMARY KEY (game, season, entry_id)
   );
   CREATE TABLE ladder_games (
     id TEXT COLLATE "C" PRIMARY KEY,
     game TEXT NOT NULL,
     season TEXT NOT NULL REFERENCES ladder_seasons (id),
     started_at BIGINT NOT NULL,
     ended_at BIGINT NOT NULL,
     record_id TEXT
   );
   CREATE INDEX ladder_games_ended ON ladder_games (ended_at, id);
   CREATE INDEX ladder_games_season_ended ON ladder_games (game, season, ended_at, id);
   CREATE TABLE ladder_game_seats (
     game_id TEXT COLLATE "C" NOT NULL REFERENCES ladder_games (id),
     seat INTEGER NOT NULL,
     entry_id TEXT COLLATE "C" REFERENCES ladder_entries (id),
     house_level TEXT,
     name TEXT NOT NULL,
     score DOUBLE PRECISION NOT NULL,
     outcome TEXT NOT NULL,
     before_rating DOUBLE PRECISION NOT NULL,
     before_rd DOUBLE PRECISION NOT NULL,
     before_vol DOUBLE PRECISION NOT NULL,
     before_games INTEGER NOT NULL,
     after_rating DOUBLE PRECISION NOT NULL,
     after_rd DOUBLE PRECISION NOT NULL,
     after_vol DOUBLE PRECISION NOT NULL,
     after_games INTEGER NOT NULL,
     reason TEXT,
     PRIMARY KEY (game_id, seat),
     CHECK ((entry_id IS NULL) <> (house_level IS NULL)),
     CHECK (outcome IN ('win', 'draw', 'loss'))
   );
   CREATE INDEX ladder_game_seats_entry ON ladder_game_seats (entry_id, game_id);
   CREATE TABLE ladder_rating_history (
     id BIGSERIAL PRIMARY KEY,
     game TEXT NOT NULL,
     season TEXT NOT NULL,
     entry_id TEXT COLLATE "C" NOT NULL REFERENCES ladder_entries (id),
     game_id TEXT COLLATE "C" NOT NULL REFERENCES ladder_games (id),
     at BIGINT NOT NULL,
     rating DOUBLE PRECISION NOT NULL,
     rd DOUBLE PRECISION NOT NULL
   );
   CREATE INDEX ladder_rating_history_entry ON ladder_rating_history (entry_id, game, season, at, id);`,
];

export const PG_LADDER_SCHEMA_VERSION = PG_LADDER_MIGRATIONS.length;
