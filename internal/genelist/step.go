package genelist

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"strategist/internal/store"
	"strategist/internal/strategy"
)

// ListSearch is WDK's gene-ids search, which a list runs as in a strategy.
// Its ds_gene_ids holds the list's ids themselves, on every site: offline
// they are evaluated exactly; on a live site the WDK client uploads them as
// a dataset of the researcher's account when it sends the step, and the
// site answers them.
const ListSearch = "GeneByLocusTag"

// Step is the search step that stands for list l in a strategy: the gene
// ids search over the list's current ids, named after the list unless
// displayName is given.
func Step(l store.GeneList, displayName string) (strategy.AddSearch, error) {
	ids, err := json.Marshal(l.Genes)
	if err != nil {
		return strategy.AddSearch{}, fmt.Errorf("genelist: step of %s: %w", l.ID, err)
	}
	if strings.TrimSpace(displayName) == "" {
		displayName = "List: " + l.Name
	}
	return strategy.AddSearch{SearchName: ListSearch, Parameters: map[string]string{"ds_gene_ids": string(ids)}, DisplayName: displayName}, nil
}

// Find returns the user's list named by ref: its id, else its name (any
// case). A name two lists share is an InputError listing them; no match
// is store.ErrNotFound with the user's list names.
func (s *Service) Find(ctx context.Context, userID, ref string) (store.GeneList, error) {
	ref = strings.TrimSpace(ref)
	if l, err := s.store.GeneList(ctx, userID, ref); err == nil {
		return l, nil
	}
	ls, err := s.store.GeneLists(ctx, userID)
	if err != nil {
		return store.GeneList{}, fmt.Errorf("genelist: find %q: %w", ref, err)
	}
	var names, hits []string
	for _, l := range ls {
		names = append(names, fmt.Sprintf("%q (%s)", l.Name, l.ID))
		if strings.EqualFold(l.Name, ref) {
			hits = append(hits, l.ID)
		}
	}
	switch len(hits) {
	case 0:
		if len(names) == 0 {
			return store.GeneList{}, fmt.Errorf("genelist: no list %q; the researcher has no gene lists yet: %w", ref, store.ErrNotFound)
		}
		return store.GeneList{}, fmt.Errorf("genelist: no list %q; the researcher's lists are %s: %w", ref, strings.Join(names, ", "), store.ErrNotFound)
	case 1:
		return s.Get(ctx, userID, hits[0])
	}
	return store.GeneList{}, &InputError{Field: "list", Message: fmt.Sprintf("%d lists are named %q; name one by its id: %s", len(hits), ref, strings.Join(hits, ", "))}
}
