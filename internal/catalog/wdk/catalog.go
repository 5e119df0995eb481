package wdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"golang.org/x/sync/errgroup"

	"strategist/internal/catalog"
)

// geneRecordType is where VEuPathDB keeps gene searches ("transcript",
// shown as "Gene"), looked in first when a search's record type is not
// given.
const geneRecordType = "transcript"

// Sites lists the configured sites; it makes no request.
func (c *Client) Sites(context.Context) ([]catalog.Site, error) {
	out := make([]catalog.Site, 0, len(c.order))
	for _, id := range c.order {
		s := c.sites[id]
		out = append(out, catalog.Site{ID: s.ID, DisplayName: s.DisplayName, ProjectID: s.ProjectID, Offline: false})
	}
	return out, nil
}

// RecordTypes lists a site's record types with their search counts.
func (c *Client) RecordTypes(ctx context.Context, site string) ([]catalog.RecordType, error) {
	if _, err := c.site(site); err != nil {
		return nil, err
	}
	infos, err := c.cache.recordTypes.load(ctx, site, func(ctx context.Context) ([]RecordTypeInfo, error) {
		return c.RecordTypesExpanded(ctx, site)
	})
	if err != nil {
		return nil, err
	}
	out := make([]catalog.RecordType, 0, len(infos))
	for _, in := range infos {
		out = append(out, catalog.RecordType{
			Name:              in.Name,
			FullName:          in.FullName,
			DisplayName:       in.DisplayName,
			DisplayNamePlural: in.DisplayNamePlural,
			SearchCount:       max(in.SearchCount, 0),
		})
	}
	return out, nil
}

// searchList returns a record type's searches from the cache, indexing
// each search's record type.
func (c *Client) searchList(ctx context.Context, site, recordType string) ([]SearchInfo, error) {
	return c.cache.searches.load(ctx, key(site, recordType), func(ctx context.Context) ([]SearchInfo, error) {
		list, err := c.SearchList(ctx, site, recordType)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			c.cache.searchRT.set(key(site, s.Name), recordType)
		}
		return list, nil
	})
}

// allSearches returns the searches of every record type of the site,
// loading the lists concurrently within the site's concurrency bound. A
// record type whose list fails for reasons other than the caller (auth,
// cancellation) is skipped and logged.
func (c *Client) allSearches(ctx context.Context, site string) ([]SearchInfo, error) {
	s, err := c.site(site)
	if err != nil {
		return nil, err
	}
	rts, err := c.cache.rtNames.load(ctx, site, func(ctx context.Context) ([]string, error) {
		return c.RecordTypeNames(ctx, site)
	})
	if err != nil {
		return nil, err
	}
	lists := make([][]SearchInfo, len(rts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cap(s.sem))
	for i, rt := range rts {
		g.Go(func() error {
			list, err := c.searchList(gctx, site, rt)
			if err == nil {
				lists[i] = list
				return nil
			}
			var ae *AuthError
			var mt *MissingTokenError
			if errors.As(err, &ae) || errors.As(err, &mt) || ctx.Err() != nil {
				return err
			}
			c.log.LogAttrs(ctx, slog.LevelWarn, "wdk: skipping a record type whose searches failed",
				slog.String("site", site), slog.String("record_type", rt), slog.Any("error", err))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []SearchInfo
	for _, l := range lists {
		out = append(out, l...)
	}
	return out, nil
}

// Searches lists the searches of a record type ("" for every record type)
// that a researcher can pick: WDK's internal searches (the boolean combine
// among them) are left out; Search and BooleanSearch still find them.
func (c *Client) Searches(ctx context.Context, site, recordType string) ([]catalog.SearchSummary, error) {
	list, err := c.summaries(ctx, site, recordType)
	if err != nil {
		return nil, err
	}
	out := make([]catalog.SearchSummary, 0, len(list))
	for i := range list {
		if !list[i].Internal() {
			out = append(out, list[i].summary(list[i].Kind()))
		}
	}
	return out, nil
}

func (c *Client) summaries(ctx context.Context, site, recordType string) ([]SearchInfo, error) {
	if _, err := c.site(site); err != nil {
		return nil, err
	}
	if recordType == "" {
		return c.allSearches(ctx, site)
	}
	return c.searchList(ctx, site, recordType)
}

// recordTypeOf finds the record type of a search by name: the index of
// lists already read, then genes, then every record type.
func (c *Client) recordTypeOf(ctx context.Context, site, name string) (string, error) {
	if rt, ok := c.cache.searchRT.get(key(site, name)); ok {
		return rt, nil
	}
	if _, err := c.searchList(ctx, site, geneRecordType); err != nil && !errors.Is(err, catalog.ErrNotFound) {
		return "", err
	}
	if rt, ok := c.cache.searchRT.get(key(site, name)); ok {
		return rt, nil
	}
	if _, err := c.allSearches(ctx, site); err != nil {
		return "", err
	}
	if rt, ok := c.cache.searchRT.get(key(site, name)); ok {
		return rt, nil
	}
	return "", fmt.Errorf("wdk: %s: search %q: %w", site, name, catalog.ErrNotFound)
}

// details returns a search's details from the cache. A 404 drops the
// cached list that named the search: the live catalog changes between
// releases.
func (c *Client) details(ctx context.Context, site, recordType, name string) (*SearchDetails, error) {
	if _, err := c.site(site); err != nil {
		return nil, err
	}
	if recordType == "" {
		rt, err := c.recordTypeOf(ctx, site, name)
		if err != nil {
			return nil, err
		}
		recordType = rt
	}
	d, err := c.cache.details.load(ctx, key(site, recordType, name), func(ctx context.Context) (*SearchDetails, error) {
		return c.SearchDetails(ctx, site, recordType, name)
	})
	if errors.Is(err, catalog.ErrNotFound) {
		c.dropDoc(ctx, site, searchesPath(recordType))
		c.cache.searches.drop(key(site, recordType))
		c.cache.index.drop(key(site, recordType))
		c.cache.index.drop(key(site, ""))
		c.cache.searchRT.drop(key(site, name))
		c.cache.details.drop(key(site, recordType, name))
	}
	return d, err
}

// Search returns a search with its parameters; recordType may be "".
func (c *Client) Search(ctx context.Context, site, recordType, name string) (*catalog.Search, error) {
	d, err := c.details(ctx, site, recordType, name)
	if err != nil {
		return nil, err
	}
	return d.Catalog(), nil
}

// Details returns a search with WDK's extra parameter details (tree
// vocabularies, groups); recordType may be "". The value is shared: do not
// modify it.
func (c *Client) Details(ctx context.Context, site, recordType, name string) (*SearchDetails, error) {
	return c.details(ctx, site, recordType, name)
}

// BooleanSearch returns the boolean combine of a record type. Its
// input-step parameter names embed the record class's full name, so they
// are read from here (InputParams: left, right), never built by hand; the
// operator parameter is the one that is not an input.
func (c *Client) BooleanSearch(ctx context.Context, site, recordType string) (*SearchDetails, error) {
	list, err := c.searchList(ctx, site, recordType)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].IsBoolean() {
			return c.details(ctx, site, recordType, list[i].Name)
		}
	}
	return nil, fmt.Errorf("wdk: %s: boolean search of %s: %w", site, recordType, catalog.ErrNotFound)
}

// SearchForSearches ranks the searches of a record type ("" for all) for a
// free-text need, from the cached lists (no site-search call).
func (c *Client) SearchForSearches(ctx context.Context, site, query, recordType string, limit int) ([]catalog.SearchSummary, error) {
	if _, err := c.site(site); err != nil {
		return nil, err
	}
	ix, err := c.cache.index.load(ctx, key(site, recordType), func(ctx context.Context) (*searchIndex, error) {
		list, err := c.summaries(ctx, site, recordType)
		if err != nil {
			return nil, err
		}
		return newSearchIndex(list), nil
	})
	if err != nil {
		return nil, err
	}
	return ix.Rank(query, "", limit), nil
}

// Validate checks values with WDK (POST contextParamValues) after the
// checks that need no request, and returns the complete set: omitted
// parameters filled from their defaults, multi-picks as JSON arrays,
// input-step parameters "".
func (c *Client) Validate(ctx context.Context, site, searchName string, params map[string]string) (map[string]string, error) {
	d, err := c.details(ctx, site, "", searchName)
	if err != nil {
		return nil, err
	}
	return c.fill(ctx, site, d, params, true)
}

// recordTypeInfo returns one record type (its attributes), cached.
func (c *Client) recordTypeInfo(ctx context.Context, site, recordType string) (*RecordTypeInfo, error) {
	return c.cache.recordType.load(ctx, key(site, recordType), func(ctx context.Context) (*RecordTypeInfo, error) {
		return c.RecordType(ctx, site, recordType)
	})
}

// serviceInfo returns the service root, cached.
func (c *Client) serviceInfo(ctx context.Context, site string) (*ServiceInfo, error) {
	return c.cache.service.load(ctx, site, func(ctx context.Context) (*ServiceInfo, error) {
		return c.ServiceInfo(ctx, site)
	})
}
