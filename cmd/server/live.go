package main

import (
	"fmt"
	"log/slog"

	"strategist/internal/catalog/sites"
	"strategist/internal/catalog/wdk"
	"strategist/internal/config"
	"strategist/internal/store"
)

// newSites builds the catalog registry: the offline snapshot and, through
// the WDK client, every live site, with users' keys from the keyring.
func newSites(cfg *config.Config, db *store.DB, log *slog.Logger) (*sites.Registry, *sites.Keyring, error) {
	off, err := newCatalog(cfg, log)
	if err != nil {
		return nil, nil, err
	}
	var creds *wdk.Credentials
	if len(cfg.SecretKey) > 0 {
		if creds, err = wdk.NewCredentials(cfg.SecretKey); err != nil {
			return nil, nil, err
		}
	}
	keys := sites.NewKeyring(db, creds, cfg.LiveTimeout, log)
	reg, err := sites.Live(off, keys, cfg.WDKBaseURL, cfg.LiveTimeout, log)
	if err != nil {
		return nil, nil, fmt.Errorf("live sites: %w", err)
	}
	return reg, keys, nil
}
