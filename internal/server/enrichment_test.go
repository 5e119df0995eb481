package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/offlinetest"
	"strategist/internal/server"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// withoutEnrichment is a catalog that answers but has no GO annotations
// (as a live site, for Strategist).
type withoutEnrichment struct{ catalog.Catalog }

// enrichmentEnv runs the server over the real strategy service, the
// offline catalog with its gene data and PostgreSQL, and builds the
// acceptance strategy (DNA replication or repair, not on chromosome 14)
// in a conversation of ada's. With plain set, the strategy service's
// catalog cannot enrich.
func enrichmentEnv(t *testing.T, plain bool) (e *env, ada, eve, conv string, root strategy.StepID) {
	t.Helper()
	cat, err := offline.Open(offlinetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if cat.DataErr() != nil {
		t.Skipf("gene data: %v", cat.DataErr())
	}
	var svc *strategy.Service
	var svcCat strategy.Catalog = cat
	if plain {
		svcCat = withoutEnrichment{cat}
	}
	e = newEnvWith(t, config.AuthLocal, cat, func(cfg *server.Config) {
		svc, err = strategy.NewService(strategy.Config{Store: cfg.Store.(*store.DB), Catalog: svcCat})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Strategies = svc
	})
	u, ada := e.user("ada@example.org")
	_, eve = e.user("eve@example.org")
	r := e.do(http.MethodPost, "/api/v1/conversations", ada, `{"siteId":"plasmodb"}`)
	conv, _ = r.json(t)["id"].(string)
	if r.status != http.StatusCreated || conv == "" {
		t.Fatalf("create conversation = %d %s", r.status, r.body)
	}
	ctx := context.Background()
	snap, err := svc.ForConversation(ctx, u.ID, conv, "transcript", "Acceptance")
	if err != nil {
		t.Fatal(err)
	}
	goTerm := func(id string) strategy.AddSearch {
		return strategy.AddSearch{SearchName: "GenesByGoTerm",
			Parameters: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["` + id + `"]`}}
	}
	for _, m := range []strategy.Mutation{
		goTerm("GO:0006260"), goTerm("GO:0006281"), strategy.Combine{Left: "s1", Right: "s2", Operator: "OR"},
		strategy.AddSearch{SearchName: "GenesByLocation", Parameters: map[string]string{"chromosomeOptional": "Pf3D7_14_v3"}},
		strategy.Combine{Left: "s3", Right: "s4", Operator: "NOT"},
	} {
		res, err := svc.Apply(ctx, u.ID, snap.StrategyID, m)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		snap = res.Snapshot
	}
	return e, ada, eve, conv, snap.RootStepID
}

// TestStepEnrichmentAPI: the acceptance root's GO enrichment lists DNA
// replication and DNA repair with BH-adjusted p-values, downloads as TSV,
// and is the owner's only; a bad cutoff, an unknown step and a bad format
// are refused with their codes.
func TestStepEnrichmentAPI(t *testing.T) {
	t.Parallel()
	e, ada, eve, conv, root := enrichmentEnv(t, false)
	path := "/api/v1/conversations/" + conv + "/strategy/steps/" + string(root) + "/enrichment"

	r := e.do(http.MethodGet, path, ada, "")
	if r.status != http.StatusOK {
		t.Fatalf("enrichment = %d %s", r.status, r.body)
	}
	var body struct {
		StepID string `json:"stepId"`
		enrich.Result
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.StepID != string(root) || body.StepSize != 89 || body.Cutoff != 0.05 || body.BackgroundSize < 2000 ||
		body.TestedTerms <= len(body.Terms) || !body.Provenance.Offline || !strings.Contains(body.Limits, "molecular function") {
		t.Fatalf("enrichment head = step %s size %d cutoff %v background %d tested %d listed %d provenance %+v limits %q",
			body.StepID, body.StepSize, body.Cutoff, body.BackgroundSize, body.TestedTerms, len(body.Terms), body.Provenance, body.Limits)
	}
	found := map[string]enrich.Term{}
	for _, term := range body.Terms {
		found[term.GOID] = term
	}
	for _, id := range []string{"GO:0006260", "GO:0006281"} {
		term, ok := found[id]
		if !ok || term.Benjamini <= 0 || term.Benjamini > 1e-20 || term.Benjamini < term.PValue || len(term.GeneIDs) != term.ResultCount {
			t.Errorf("%s = %+v", id, term)
		}
	}
	var raw map[string][]map[string]any
	_ = json.Unmarshal(r.body, &raw)
	if odds, ok := raw["terms"][0]["oddsRatio"]; !ok || odds == nil {
		t.Errorf("first term's oddsRatio = %v", odds)
	}

	r = e.do(http.MethodGet, path+"?cutoff=1&format=tsv", ada, "")
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/tab-separated-values") ||
		!strings.Contains(r.header.Get("Content-Disposition"), "go-enrichment.tsv") {
		t.Fatalf("TSV = %d %v", r.status, r.header)
	}
	header := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "go_id\t") {
			header = i
			break
		}
		if !strings.HasPrefix(l, "# ") {
			t.Errorf("TSV line %d before the header is not a comment: %q", i+1, l)
		}
	}
	if header < 0 || len(lines)-header-1 != body.TestedTerms || !strings.Contains(string(r.body), "\tDNA repair\t") {
		t.Errorf("TSV: header at %d, %d rows (tested %d)", header, len(lines)-header-1, body.TestedTerms)
	}

	for _, tt := range []struct {
		path, token string
		status      int
		code        string
	}{
		{path + "?cutoff=0", ada, http.StatusBadRequest, server.CodeBadRequest},
		{path + "?cutoff=1.5", ada, http.StatusBadRequest, server.CodeBadRequest},
		{path + "?cutoff=abc", ada, http.StatusBadRequest, server.CodeBadRequest},
		{path + "?format=xml", ada, http.StatusBadRequest, server.CodeBadRequest},
		{"/api/v1/conversations/" + conv + "/strategy/steps/s99/enrichment", ada, http.StatusNotFound, "STEP_NOT_FOUND"},
		{path, eve, http.StatusNotFound, server.CodeNotFound},
		{path, "", http.StatusUnauthorized, server.CodeUnauthenticated},
	} {
		if r := e.do(http.MethodGet, tt.path, tt.token, ""); r.status != tt.status || r.errorCode(t) != tt.code {
			t.Errorf("GET %s = %d %s, want %d %s", tt.path, r.status, r.body, tt.status, tt.code)
		}
	}
}

// TestStepEnrichmentUnavailable: a catalog without GO annotations (a live
// site) is a 422 ENRICHMENT_UNAVAILABLE, never an invented table.
func TestStepEnrichmentUnavailable(t *testing.T) {
	t.Parallel()
	e, ada, _, conv, root := enrichmentEnv(t, true)
	r := e.do(http.MethodGet, "/api/v1/conversations/"+conv+"/strategy/steps/"+string(root)+"/enrichment", ada, "")
	if r.status != http.StatusUnprocessableEntity || r.errorCode(t) != server.CodeEnrichmentUnavailable {
		t.Errorf("enrichment without annotations = %d %s", r.status, r.body)
	}
}
