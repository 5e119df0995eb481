package main

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"strategist/internal/eval"
	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/offlinetest"
)

// TestSeedControlSets pairs strategies with PathFinder's seed control sets
// (captured from live PlasmoDB around 2026, data/SOURCES.md): each
// strategy is built with its own set as positives and another set as
// negatives, and the figures the build's requirement check reports at the
// result equal those computed here from the 2017 raw files: the seed ids
// the export's GO set has, and the negatives it has.
func TestSeedControlSets(t *testing.T) {
	t.Parallel()
	srv := startOffline(t)
	data := loadGeneData(t)
	seeds, err := eval.LoadSeedSets(srv.dataDir)
	if errors.Is(err, eval.ErrNoData) {
		offlinetest.Missing(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		request, goID, positives, negatives string
	}{
		{"Find genes involved in DNA replication", "GO:0006260", "PF_DNA_REPLICATION", "PF_KINASES"},
		{"genes involved in protein folding", "GO:0006457", "PF_CHAPERONES", "PF_DNA_REPLICATION"},
		{"Find genes involved in translation", "GO:0006412", "PF_TRANSLATION", "PF_CHAPERONES"},
	} {
		t.Run(c.positives, func(t *testing.T) {
			conv := srv.conversation(t)
			ids := map[string]string{}
			for _, set := range []string{c.positives, c.negatives} {
				if len(seeds[set]) == 0 {
					t.Fatalf("no seed set %s", set)
				}
				var l struct{ ID string }
				srv.call(t, http.MethodPost, "/api/v1/gene-lists", map[string]string{"name": conv + " " + set, "text": strings.Join(seeds[set], "\n")}, &l, http.StatusCreated)
				ids[set] = l.ID
			}
			srv.call(t, http.MethodPut, "/api/v1/conversations/"+conv+"/controls", map[string]string{"positives": ids[c.positives], "negatives": ids[c.negatives]}, nil, http.StatusOK)
			run := srv.scenarioIn(t, conv, c.request)
			// The controls set before the first turn are no turn's event.
			eventtest.Check(t, slices.DeleteFunc(run.all(), func(r event.Record) bool { return r.Type == "controls_changed" && r.TurnID == "" }))
			set := data.GO(c.goID)
			found, negFound := 0, 0
			for _, g := range seeds[c.positives] {
				if set[g] {
					found++
				}
			}
			for _, g := range seeds[c.negatives] {
				if set[g] {
					negFound++
				}
			}
			ctl := requirementsChecked(t, run.exec).Controls
			if ctl == nil || ctl.PositivesFound == nil || *ctl.PositivesFound != found || ctl.PositivesTotal != len(seeds[c.positives]) ||
				*ctl.NegativesFound != negFound || ctl.NegativesTotal != len(seeds[c.negatives]) || len(ctl.PositivesLost) != ctl.PositivesTotal-found {
				t.Fatalf("controls at the result = %+v; the raw files give %d of %d positives, %d of %d negatives",
					ctl, found, len(seeds[c.positives]), negFound, len(seeds[c.negatives]))
			}
			t.Logf("%s against %s: %d of %d positives (recall %.3f), %d of %d negatives", c.goID, c.positives, found, len(seeds[c.positives]),
				float64(found)/float64(len(seeds[c.positives])), negFound, len(seeds[c.negatives]))
		})
	}
}
