package main

import (
	"context"
	"io"

	"strategist/internal/catalog/offline"
)

// catalogCmd explores the offline catalog from a terminal.
func catalogCmd(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	cat, err := offline.Open(offline.FindDataDir(getenv("STRATEGIST_DATA_DIR")))
	if err != nil {
		return err
	}
	return runCatalog(ctx, cat, args, stdout)
}
