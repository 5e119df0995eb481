package wdk

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func TestCatalogListing(t *testing.T) {
	c := newTestClient(t, nil)
	rts, err := c.RecordTypes(bg, "plasmodb")
	if err != nil {
		t.Fatal(err)
	}
	wantRTs := []catalog.RecordType{
		{Name: "transcript", FullName: "TranscriptRecordClasses.TranscriptRecordClass", DisplayName: "Gene", DisplayNamePlural: "Genes", SearchCount: 2},
		{Name: "pathway", FullName: "PathwayRecordClasses.PathwayRecordClass", DisplayName: "Metabolic Pathway", DisplayNamePlural: "Metabolic Pathways", SearchCount: 1},
	}
	if diff := cmp.Diff(wantRTs, rts); diff != "" {
		t.Errorf("RecordTypes() mismatch (-want +got):\n%s", diff)
	}

	got, err := c.Searches(bg, "plasmodb", "transcript")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name+":"+string(s.Kind))
		if !s.Evaluable || s.RecordType != "transcript" {
			t.Errorf("%s: Evaluable %v RecordType %q", s.Name, s.Evaluable, s.RecordType)
		}
	}
	want := []string{"GeneByLocusTag:leaf", "GenesByGoTerm:leaf", "GenesByMolecularWeight:leaf", "GenesByOrthologs:transform", "GenesByTaxon:leaf", "GenesByText:leaf"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Searches() mismatch (-want +got), the internal boolean must be left out:\n%s", diff)
	}

	all, err := c.Searches(bg, "plasmodb", "")
	if err != nil {
		t.Fatalf("Searches(all record types) error = %v (a failing record type is skipped)", err)
	}
	if len(all) != 7 || !strings.Contains(c.logs.String(), "jbrowse-gene") {
		t.Errorf("Searches(all) = %d searches, want 7 and a logged skip of jbrowse-gene", len(all))
	}
	if _, err := c.Searches(bg, "nosuchdb", "transcript"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("Searches(unknown site) error = %v, want ErrNotFound", err)
	}
}

func TestSearch(t *testing.T) {
	c := newTestClient(t, nil)
	s, err := c.Search(bg, "plasmodb", "", "GenesByOrthologs")
	if err != nil {
		t.Fatalf("Search() error = %v", err)
	}
	if s.Kind != catalog.KindTransform || s.RecordType != "transcript" || cmp.Diff([]string{"gene_result"}, s.InputParams) != "" {
		t.Errorf("Search() = kind %s rt %s inputs %v, want a transcript transform with input gene_result", s.Kind, s.RecordType, s.InputParams)
	}
	if p, ok := s.Param("isSyntenic"); !ok || p.Default != "no" || p.MaxSelected != 1 {
		t.Errorf("isSyntenic = %+v", p)
	}

	// A search of another record type is found by scanning them all.
	p, err := c.Search(bg, "plasmodb", "", "PathwaysByName")
	if err != nil || p.RecordType != "pathway" {
		t.Fatalf("Search(PathwaysByName) = %+v, %v", p, err)
	}
	if _, err := c.Search(bg, "plasmodb", "", "GenesByNothing"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("Search(unknown) error = %v, want ErrNotFound", err)
	}

	b, err := c.BooleanSearch(bg, "plasmodb", "transcript")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bq_left_op_TranscriptRecordClasses_TranscriptRecordClass", "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass"}
	if diff := cmp.Diff(want, b.InputParams); diff != "" {
		t.Errorf("BooleanSearch().InputParams mismatch (-want +got):\n%s", diff)
	}
}

func TestSearchRemovedByARelease(t *testing.T) {
	c := newTestClient(t, func(cfg *Config) { cfg.CacheTTL = 1 << 62 })
	if _, err := c.Search(bg, "plasmodb", "", "GenesByMolecularWeight"); err != nil {
		t.Fatal(err)
	}
	c.cache.details.drop(key("plasmodb", "transcript", "GenesByMolecularWeight"))
	c.fake.hide("GenesByMolecularWeight")
	if _, err := c.Search(bg, "plasmodb", "", "GenesByMolecularWeight"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("Search(removed) error = %v, want ErrNotFound", err)
	}
	got, err := c.Searches(bg, "plasmodb", "transcript")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if s.Name == "GenesByMolecularWeight" {
			t.Error("the removed search is still listed: the 404 did not drop the cached list")
		}
	}
	if n := countPath(c, http.MethodGet, "/record-types/transcript/searches"); n != 2 {
		t.Errorf("search list fetched %d times, want 2 (refetched after the 404)", n)
	}
}

func TestSearchForSearches(t *testing.T) {
	c := newTestClient(t, nil)
	tests := []struct {
		query, recordType string
		wantFirst         string
	}{
		{"GO term", "transcript", "GenesByGoTerm"},
		{"genes annotated with gene ontology", "transcript", "GenesByGoTerm"},
		{"protein molecular weight", "transcript", "GenesByMolecularWeight"},
		{"orthologs in other organisms", "transcript", "GenesByOrthologs"},
		{"product description text", "transcript", "GenesByText"},
		{"species", "transcript", "GenesByTaxon"},
		{"pathway name", "", "PathwaysByName"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := c.SearchForSearches(bg, "plasmodb", tt.query, tt.recordType, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || got[0].Name != tt.wantFirst || got[0].Score <= 0 {
				t.Fatalf("SearchForSearches(%q) = %+v, want %s first", tt.query, got, tt.wantFirst)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score > got[i-1].Score {
					t.Errorf("results not ordered by score: %+v", got)
				}
			}
		})
	}
	got, _ := c.SearchForSearches(bg, "plasmodb", "combine gene results", "transcript", 10)
	for _, s := range got {
		if strings.HasPrefix(s.Name, "boolean_question") {
			t.Error("an internal search was ranked")
		}
	}
	if got, _ := c.SearchForSearches(bg, "plasmodb", "zzzz", "transcript", 10); len(got) != 0 {
		t.Errorf("SearchForSearches(no match) = %+v, want none", got)
	}
	if got, _ := c.SearchForSearches(bg, "plasmodb", "", "transcript", 2); len(got) != 2 {
		t.Errorf("SearchForSearches(empty query) = %d results, want the limit 2", len(got))
	}
	if n := len(c.fake.recorded("", "/site-search")); n != 0 {
		t.Errorf("site search called %d times, want never", n)
	}
}

func TestValidate(t *testing.T) {
	goDefaults := map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_term_evidence": `["Curated","Computed"]`,
		"go_term_slim": "No", "go_term": "N/A"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name      string
		search    string
		params    map[string]string
		want      map[string]string
		wantByKey map[string][]string
	}{
		{"defaults filled, multi-pick sent as a JSON array", "GenesByGoTerm", map[string]string{"go_typeahead": "GO:0006412"},
			with(goDefaults, "go_typeahead", `["GO:0006412"]`), nil},
		{"a bare value with a comma is not split", "GenesByGoTerm", map[string]string{"go_typeahead": "GO:0006412,GO:0006260"},
			nil, map[string][]string{"go_typeahead": {`'GO:0006412,GO:0006260' is not one term; give several values as a JSON array string such as ["a","b"] (values are not split on commas).`}}},
		{"single-pick given as a one-element array", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006412"]`, "go_term_slim": `["No"]`},
			with(goDefaults, "go_typeahead", `["GO:0006412"]`), nil},
		{"unknown parameter", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006412"]`, "organsim": "x"},
			nil, map[string][]string{"organsim": {"Parameter 'organsim' is not a parameter of GenesByGoTerm (its parameters: organism, go_term_evidence, go_term_slim, go_typeahead, go_term)."}}},
		{"omitted parameter without a default", "GenesByGoTerm", map[string]string{},
			nil, map[string][]string{"go_typeahead": {"Cannot be empty."}}},
		{"a term in other case", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006412"]`, "go_term_evidence": `["curated"]`},
			nil, map[string][]string{"go_term_evidence": {"Invalid value 'curated'. Terms are case-sensitive: use 'Curated'."}}},
		{"two values on a single-pick", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006412"]`, "go_term_slim": `["No","Yes"]`},
			nil, map[string][]string{"go_term_slim": {"Limit to GO Slim terms takes one value; got 2."}}},
		{"dependent vocabulary checked by WDK", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:9999999"]`},
			nil, map[string][]string{"go_typeahead": {"'GO:9999999' is not in the vocabulary"}}},
		{"dependent default read for the given value", "GenesByText", map[string]string{"text_expression": "kinase", "document_type": "est"},
			map[string]string{"text_search_organism": `["Plasmodium falciparum 3D7"]`, "text_expression": "kinase", "document_type": "est",
				"text_fields": `["primary_key"]`, "timestamp": "1719000000000"}, nil},
		{"input-step left empty", "GenesByOrthologs", map[string]string{"organism": `["Plasmodium vivax P01"]`},
			map[string]string{"gene_result": "", "organism": `["Plasmodium vivax P01"]`, "isSyntenic": "no"}, nil},
		{"input-step with a value", "GenesByOrthologs", map[string]string{"gene_result": "101"},
			nil, map[string][]string{"gene_result": {"Answer Params in new steps must have the null value (empty string): inputs are wired by the strategy's step tree."}}},
	}
	c := newTestClient(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Validate(bg, "plasmodb", tt.search, tt.params)
			if tt.wantByKey == nil {
				if err != nil {
					t.Fatalf("Validate() error = %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
				}
				return
			}
			var ve *catalog.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() error = %v, want *catalog.ValidationError", err)
			}
			if diff := cmp.Diff(tt.wantByKey, ve.ByKey); diff != "" || ve.Search != tt.search {
				t.Errorf("Validate() ByKey mismatch (-want +got):\n%s (search %q)", diff, ve.Search)
			}
		})
	}
	c.fake.checkNoViolations(t)
}

func TestTokenNeverLeaks(t *testing.T) {
	c := newTestClient(t, func(cfg *Config) { cfg.MaxAttempts = 2 })
	echo := "token " + registeredToken + " rejected; cookie " + guestCookie
	c.fake.inject(http.MethodGet, "/record-types", fakeResponse{status: 400, body: echo})
	c.fake.inject(http.MethodGet, "/", fakeResponse{status: 503, body: echo}, fakeResponse{status: 503, body: echo})
	c.fake.inject(http.MethodGet, "/users/current", fakeResponse{status: 401, body: "Bearer " + registeredToken + " expired"})
	c.fake.inject(http.MethodPost, "/record-types/transcript/searches/GenesByTaxon", fakeResponse{status: 422,
		body: `{"level":"SEMANTIC","isValid":false,"errors":{"general":["` + registeredToken + `"],"byKey":{}}}`})
	var errs []error
	_, err := c.RecordTypeNames(bg, "plasmodb")
	errs = append(errs, err)
	_, err = c.ServiceInfo(bg, "plasmodb")
	errs = append(errs, err)
	_, err = c.Step(bg, "plasmodb", 1)
	errs = append(errs, err)
	_, err = c.ReviseSearch(bg, "plasmodb", "transcript", "GenesByTaxon", nil)
	errs = append(errs, err)
	_, err = c.Answer(bg, "plasmodb", goTerm("GO:0006412", 0), catalog.Page{Limit: 2}) // succeeds, logs requests
	errs = append(errs, err)
	g := newTestClient(t, func(cfg *Config) { cfg.Tokens = staticTokens{"plasmodb": guestToken} })
	_, err = g.CreateStep(bg, "plasmodb", NewStep{SearchName: "GenesByTaxon"})
	errs = append(errs, err)

	for i, err := range errs[:4] {
		if err == nil {
			t.Errorf("call %d succeeded, want an error", i)
		}
	}
	secrets := []string{registeredToken, guestToken, "eyJguestjwt"}
	for _, err := range errs {
		if err == nil {
			continue
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("error %q reveals %q", err, s)
			}
		}
	}
	logs := c.logs.String() + g.logs.String()
	if !strings.Contains(logs, "wdk request") {
		t.Fatal("no request was logged; the check below would prove nothing")
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("logs reveal %q:\n%s", s, logs)
		}
	}
	c.fake.checkNoViolations(t)
}

func TestCredentials(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	cr, err := NewCredentials(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := cr.Seal("user-a", "plasmodb", " "+registeredToken+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), registeredToken) {
		t.Fatal("sealed key contains the token")
	}
	got, err := cr.Open("user-a", "plasmodb", sealed)
	if err != nil || got != registeredToken {
		t.Fatalf("Open() = %q, %v", got, err)
	}
	for _, tt := range []struct{ user, site string }{{"user-b", "plasmodb"}, {"user-a", "toxodb"}} {
		if _, err := cr.Open(tt.user, tt.site, sealed); err == nil {
			t.Errorf("Open(%s, %s) opened another row's key", tt.user, tt.site)
		}
	}
	if _, err := cr.Seal("user-a", "plasmodb", "  "); err == nil {
		t.Error("Seal() accepted an empty key")
	}
	if _, err := NewCredentials(key[:8]); err == nil {
		t.Error("NewCredentials() accepted a short key")
	}
}
