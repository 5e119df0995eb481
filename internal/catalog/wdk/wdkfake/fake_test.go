package wdkfake_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/wdk"
	"strategist/internal/catalog/wdk/wdkfake"
	"strategist/internal/offlinetest"
)

type tokens map[string]string

func (t tokens) Token(_ context.Context, site string) (string, error) {
	if k, ok := t[site]; ok {
		return k, nil
	}
	return "", wdk.ErrNoToken
}

// snapshotFake serves the fake over the offline snapshot as the process
// does, with a client of it holding key.
func snapshotFake(t *testing.T, key string) (*wdkfake.Fake, *offline.Catalog, *wdk.Client, string) {
	t.Helper()
	off, err := offline.Open(offlinetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := off.DataErr(); err != nil {
		offlinetest.Missing(t, err)
	}
	fake, err := wdkfake.New(wdkfake.Config{Catalog: off, Site: offline.SiteID, Keys: map[string]wdkfake.User{key: {ID: 77}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fake.Handler("/plasmo"))
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := wdk.New(wdk.Config{
		Tokens:     tokens{"plasmodb": key},
		BaseURLs:   map[string]string{"plasmodb": srv.URL + "/plasmo/service"},
		HTTPClient: &http.Client{Transport: tr},
	})
	if err != nil {
		t.Fatal(err)
	}
	return fake, off, c, srv.URL
}

func goTerm(id string) *catalog.Query {
	return &catalog.Query{Search: "GenesByGoTerm", Params: map[string]string{
		"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["` + id + `"]`}}
}

// The snapshot served through WDK's wire format counts what the snapshot
// counts: the acceptance strategy has 89 genes both ways.
func TestSnapshotAnswersMatchTheCatalog(t *testing.T) {
	ctx := context.Background()
	fake, off, c, _ := snapshotFake(t, "key-a")
	const boolean = "boolean_question_TranscriptRecordClasses_TranscriptRecordClass"
	q := &catalog.Query{Search: boolean, Params: map[string]string{"bq_operator": "MINUS"}, Inputs: []*catalog.Query{
		{Search: boolean, Params: map[string]string{"bq_operator": "UNION"}, Inputs: []*catalog.Query{goTerm("GO:0006260"), goTerm("GO:0006281")}},
		{Search: "GenesByLocation", Params: map[string]string{"organismSinglePick": `["Plasmodium falciparum 3D7"]`, "chromosomeOptional": "Pf3D7_14_v3"}},
	}}
	full, err := c.Validate(ctx, "plasmodb", "GenesByLocation", q.Inputs[1].Params)
	if err != nil {
		t.Fatalf("Validate(GenesByLocation) through the fake: %v", err)
	}
	q.Inputs[1].Params = full
	want, err := off.Answer(ctx, offline.SiteID, q, catalog.Page{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Answer(ctx, "plasmodb", q, catalog.Page{Limit: 5})
	if err != nil {
		t.Fatalf("Answer() through the fake: %v", err)
	}
	if got.Count != want.Count || want.Count != 89 {
		t.Errorf("count through the fake = %d, the snapshot's = %d, want 89", got.Count, want.Count)
	}
	if len(got.Records) != 5 || got.Records[0].GeneID != want.Records[0].GeneID {
		t.Errorf("records through the fake = %+v, want the snapshot's first %+v", got.Records, want.Records[0])
	}
	if got.Provenance.Offline {
		t.Errorf("provenance = %+v, want the live site's", got.Provenance)
	}
	if v := fake.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
	if n := fake.StrategyCount(); n != 0 {
		t.Errorf("%d temporary strategies left in the account", n)
	}
}

// A key revoked at a path works until a request under that path, which is
// refused, as is everything after it; the control endpoint does the same.
func TestRevokeAt(t *testing.T) {
	ctx := context.Background()
	_, _, c, base := snapshotFake(t, "key-b")
	post := func(route string) int {
		res, err := http.Post(base+route, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if st := post("/__fake/revoke?key=nope"); st != http.StatusNotFound {
		t.Errorf("revoking an unknown key = %d, want 404", st)
	}
	if st := post("/__fake/revoke?key=key-b&at=/users/"); st != http.StatusNoContent {
		t.Fatalf("revoke at = %d", st)
	}
	if _, err := c.Search(ctx, "plasmodb", "transcript", "GenesByGoTerm"); err != nil {
		t.Fatalf("a catalog read before the revocation point: %v", err)
	}
	tree := &catalog.Query{Search: "boolean_question_TranscriptRecordClasses_TranscriptRecordClass",
		Params: map[string]string{"bq_operator": "UNION"}, Inputs: []*catalog.Query{goTerm("GO:0006260"), goTerm("GO:0006281")}}
	var ae *wdk.AuthError
	if _, err := c.Answer(ctx, "plasmodb", tree, catalog.Page{}); !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		t.Errorf("Answer() at the revocation point = %v, want a 401 *AuthError", err)
	}
	if _, err := c.Search(ctx, "plasmodb", "transcript", "GenesByTaxon"); !errors.As(err, &ae) {
		t.Errorf("a catalog read after the revocation = %v, want an *AuthError", err)
	}
}

// A strategy saved in the account opens on the workspace page, which
// names it and counts it.
func TestWorkspacePage(t *testing.T) {
	ctx := context.Background()
	_, _, c, base := snapshotFake(t, "key-c")
	step, err := c.CreateStep(ctx, "plasmodb", wdk.NewStep{SearchName: "GenesByGoTerm", SearchConfig: wdk.SearchConfig{
		Parameters: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["GO:0006281"]`,
			"go_term_evidence": `["Curated","Computed"]`, "go_term_slim": "No", "go_term": "N/A"}}})
	if err != nil {
		t.Fatalf("CreateStep: %v", err)
	}
	id, err := c.CreateStrategy(ctx, "plasmodb", wdk.NewStrategy{Name: "DNA <repair>", StepTree: wdk.StepTree{StepID: step}})
	if err != nil {
		t.Fatalf("CreateStrategy: %v", err)
	}
	res, err := http.Get(base + "/plasmo/app/workspace/strategies/" + strconv.FormatInt(id, 10))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	page := string(body)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "DNA &lt;repair&gt;") ||
		!strings.Contains(page, `data-testid="wdk-strategy-size">60<`) || !strings.Contains(page, "test double") {
		t.Errorf("workspace page = %d %s", res.StatusCode, page)
	}
}
