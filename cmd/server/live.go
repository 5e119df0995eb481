package main

import (
	"fmt"
	"log/slog"

	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/wdk"
	"strategist/internal/config"
	"strategist/internal/sites"
	"strategist/internal/store"
)

// newSites builds the catalog registry: the offline snapshot off and,
// through the WDK client, every live site, with users' keys from the
// keyring and the sites' catalog documents kept in PostgreSQL for
// cfg.CatalogTTL.
func newSites(cfg *config.Config, db *store.DB, off *offline.Catalog, log *slog.Logger) (*sites.Registry, *sites.Keyring, error) {
	var creds *wdk.Credentials
	if len(cfg.SecretKey) > 0 {
		var err error
		if creds, err = wdk.NewCredentials(cfg.SecretKey); err != nil {
			return nil, nil, err
		}
	}
	keys := sites.NewKeyring(db, creds, cfg.LiveTimeout, log)
	lc := sites.LiveConfig{Offline: off, Keys: keys, BaseURL: cfg.WDKBaseURL, Timeout: cfg.LiveTimeout, Logger: log}
	if cfg.CatalogTTL > 0 {
		lc.Docs, lc.DocTTL = sites.NewDocCache(db), cfg.CatalogTTL
	}
	reg, err := sites.NewLive(lc)
	if err != nil {
		return nil, nil, fmt.Errorf("live sites: %w", err)
	}
	return reg, keys, nil
}
