package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/config"
	"strategist/internal/server"
	"strategist/internal/store"
	"strategist/internal/strategies"
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
	cat := geneCatalog(t)
	if cat.DataErr() != nil {
		t.Skipf("gene data: %v", cat.DataErr())
	}
	var svc *strategies.Service
	var svcCat strategy.Catalog = cat
	if plain {
		svcCat = withoutEnrichment{cat}
	}
	e = newEnvWith(t, config.AuthLocal, cat, func(cfg *server.Config) {
		var err error
		svc, err = strategies.NewService(strategies.Config{Store: cfg.Store.(*store.DB), Catalog: svcCat})
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

// TestStepEnrichmentPage: the results panel offers GO enrichment; its
// fragment lists the terms with GO ids linking to their term pages in a new
// tab, without opener; it is the owner's only and an unknown step is 404.
func TestStepEnrichmentPage(t *testing.T) {
	t.Parallel()
	e, _, _, conv, root := enrichmentEnv(t, false)
	cookie := func(email string) *http.Cookie {
		token, _, err := e.accounts.SignIn(context.Background(), email, "correct horse battery", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		return &http.Cookie{Name: "strategist_session", Value: token}
	}
	ada, eve := cookie("ada@example.org"), cookie("eve@example.org")
	get := func(c *http.Cookie, path string, htmx bool) response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(c)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		return e.send(req)
	}
	base := "/conversations/" + conv + "/strategy/steps/" + string(root)

	d := doc(t, get(ada, base+"/results", true))
	if got := testid(d, "enrichment-button").AttrOr("hx-get", ""); got != base+"/enrichment" {
		t.Errorf("GO enrichment button hx-get = %q", got)
	}

	r := get(ada, base+"/enrichment", true)
	d = doc(t, r)
	if r.status != http.StatusOK || d.Find("header.top").Length() != 0 || testid(d, "enrichment-table").Length() != 1 {
		t.Fatalf("enrichment fragment = %d: %s", r.status, r.body)
	}
	for _, id := range []string{"GO:0006260", "GO:0006281"} {
		row := d.Find(`[data-testid="enrichment-row"][data-go-id="` + id + `"]`)
		link := row.Find(`[data-testid="go-link"]`)
		if row.Length() != 1 || link.AttrOr("href", "") != "https://amigo.geneontology.org/amigo/term/"+id ||
			link.AttrOr("target", "") != "_blank" || link.AttrOr("rel", "") != "noopener" || strings.TrimSpace(link.Text()) != id {
			t.Errorf("%s row = %q, link href %q target %q rel %q", id, row.Text(), link.AttrOr("href", ""), link.AttrOr("target", ""), link.AttrOr("rel", ""))
		}
		if bh := strings.TrimSpace(row.Find(`[data-testid="enrichment-bh"]`).Text()); !strings.Contains(bh, "e-") {
			t.Errorf("%s BH = %q, want a small p-value", id, bh)
		}
	}
	if got := testid(d, "enrichment-download-tsv").AttrOr("href", ""); got != "/api/v1"+base+"/enrichment?cutoff=0.05&format=tsv" {
		t.Errorf("TSV link = %q", got)
	}
	if !strings.Contains(testid(d, "enrichment-limits").Text(), "evidence codes") {
		t.Errorf("limits = %q", testid(d, "enrichment-limits").Text())
	}
	if r := get(ada, base+"/enrichment?cutoff=1e-40", false); r.status != http.StatusOK || doc(t, r).Find("header.top").Length() != 1 ||
		testid(doc(t, r), "enrichment-row").Length() == 0 || testid(doc(t, r), "enrichment-row").Length() >= testid(d, "enrichment-row").Length() {
		t.Errorf("plain page with cutoff 1e-40 = %d", r.status)
	}
	if r := get(ada, "/conversations/"+conv+"/strategy/steps/s99/enrichment", true); r.status != http.StatusNotFound {
		t.Errorf("unknown step = %d", r.status)
	}
	if r := get(eve, base+"/enrichment", true); r.status != http.StatusNotFound {
		t.Errorf("another user = %d", r.status)
	}
	if r := get(ada, base+"/enrichment?cutoff=-1", true); r.status != http.StatusBadRequest {
		t.Errorf("bad cutoff = %d", r.status)
	}
}
