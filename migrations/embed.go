// Package migrations holds Strategist's numbered SQL migrations, embedded
// into the binary and applied by the store at start.
package migrations

import "embed"

// FS holds the migration files, named NNNN_description.sql.
//
//go:embed *.sql
var FS embed.FS
