package store

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/tern/v2/migrate"
)

// versionTable records the applied migration version.
const versionTable = "public.schema_version"

// Migrate applies every pending migration in fsys, then River's (the job
// queue turns run on: its tables follow the River version the binary is
// built with, so they are migrated by River's own migrator rather than
// copied into fsys). Both hold a Postgres advisory lock while they work, so
// several servers starting at once against one database all succeed: the
// others wait, then find nothing to do.
func Migrate(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate: acquire: %w", err)
	}
	defer conn.Release()
	m, err := migrate.NewMigrator(ctx, conn.Conn(), versionTable)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if err := m.LoadMigrations(fsys); err != nil {
		return fmt.Errorf("store: migrate: load: %w", err)
	}
	if err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return migrateRiver(ctx, pool)
}

// MigrationStatus reports the applied version and the number of known
// migrations; the database is current when they are equal.
func MigrationStatus(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS) (applied, known int, err error) {
	names, err := migrate.FindMigrations(fsys)
	if err != nil {
		return 0, 0, fmt.Errorf("store: migration status: %w", err)
	}
	var v int32
	err = pool.QueryRow(ctx, "SELECT version FROM "+versionTable).Scan(&v)
	if err != nil {
		return 0, len(names), translate("migration status", err)
	}
	return int(v), len(names), nil
}
