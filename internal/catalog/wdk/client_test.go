package wdk

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"strategist/internal/catalog"
)

func TestNewChecksConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no token source", Config{}},
		{"base URL for an unknown site", Config{Tokens: staticTokens{}, BaseURLs: map[string]string{"nosuchdb": "http://x"}}},
		{"base URL not http", Config{Tokens: staticTokens{}, BaseURLs: map[string]string{"plasmodb": "ftp://x/service"}}},
		{"duplicate site", Config{Tokens: staticTokens{}, Sites: []Site{{ID: "a", BaseURL: "http://a"}, {ID: "a", BaseURL: "http://b"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); err == nil {
				t.Fatal("New() accepted a bad config")
			}
		})
	}
	jar, _ := cookiejar.New(nil)
	c, err := New(Config{Tokens: staticTokens{}, HTTPClient: &http.Client{Jar: jar}})
	if err != nil {
		t.Fatal(err)
	}
	if c.http.Jar != nil {
		t.Error("the client kept a cookie jar")
	}
	sites, _ := c.Sites(bg)
	if len(sites) != 14 || sites[0].ID != "veupathdb" || sites[1].ProjectID != "PlasmoDB" || sites[1].Offline {
		t.Errorf("Sites() = %+v, want the 14 sites of the table, portal first, live", sites)
	}
}

func TestServiceRootAndUser(t *testing.T) {
	c := newTestClient(t, nil)
	info, err := c.ServiceInfo(bg, "plasmodb")
	if err != nil {
		t.Fatalf("ServiceInfo() error = %v", err)
	}
	want := &ServiceInfo{ProjectID: "PlasmoDB", DisplayName: "PlasmoDB", BuildNumber: "68", ReleaseDate: "2024-05-01T00:00:00Z", AuthMethod: "OAUTH2"}
	if diff := cmp.Diff(want, info); diff != "" {
		t.Errorf("ServiceInfo() mismatch (-want +got):\n%s", diff)
	}
	u, err := c.CurrentUser(bg, "plasmodb")
	if err != nil {
		t.Fatalf("CurrentUser() error = %v", err)
	}
	wantU := &User{ID: registeredID, Email: "researcher@example.org", Properties: map[string]string{"firstName": "Ada", "lastName": "Lovelace"}}
	if diff := cmp.Diff(wantU, u); diff != "" {
		t.Errorf("CurrentUser() mismatch (-want +got):\n%s", diff)
	}
	c.fake.checkNoViolations(t)
}

func TestCredentialRules(t *testing.T) {
	t.Run("numeric user id resolved once per token", func(t *testing.T) {
		c := newTestClient(t, nil)
		for range 3 {
			if _, err := c.CreateStep(bg, "plasmodb", NewStep{SearchName: "GenesByTaxon",
				SearchConfig: SearchConfig{Parameters: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`}}}); err != nil {
				t.Fatalf("CreateStep() error = %v", err)
			}
		}
		if n := len(c.fake.recorded(http.MethodGet, "/users/current")); n != 1 {
			t.Errorf("GET /users/current called %d times, want 1", n)
		}
		steps := c.fake.recorded(http.MethodPost, "/users/")
		for _, r := range steps {
			if r.Path != "/users/376543/steps" {
				t.Errorf("step created at %s, want /users/376543/steps", r.Path)
			}
			if diff := cmp.Diff([]string{"Bearer " + registeredToken}, r.Auth); diff != "" || len(r.Cookie) != 0 {
				t.Errorf("credentials of %s: auth %v cookies %v, want exactly one Bearer header", r.Path, r.Auth, r.Cookie)
			}
		}
		c.fake.checkNoViolations(t)
	})
	t.Run("guest token refused", func(t *testing.T) {
		c := newTestClient(t, func(cfg *Config) { cfg.Tokens = staticTokens{"plasmodb": guestToken} })
		_, err := c.CreateStep(bg, "plasmodb", NewStep{SearchName: "GenesByTaxon"})
		var ae *AuthError
		if !errors.As(err, &ae) || !ae.Guest {
			t.Fatalf("CreateStep() with a guest token: error = %v, want a guest *AuthError", err)
		}
		if !strings.Contains(err.Error(), "guest") || len(c.fake.recorded(http.MethodPost, "/users/")) != 0 {
			t.Errorf("error %q should say guest, and nothing should be created", err)
		}
		if _, err := c.CheckToken(bg, "plasmodb", guestToken); !errors.As(err, &ae) || !ae.Guest {
			t.Errorf("CheckToken(guest) error = %v, want a guest *AuthError", err)
		}
		// Catalog reads get the live sites' 403 for guests.
		_, err = c.SearchList(bg, "plasmodb", "transcript")
		if !errors.As(err, &ae) || ae.Status != http.StatusForbidden || !strings.Contains(err.Error(), "requires an API key") {
			t.Errorf("SearchList() with a guest token: error = %v, want 403 *AuthError", err)
		}
	})
	t.Run("missing token", func(t *testing.T) {
		c := newTestClient(t, func(cfg *Config) { cfg.Tokens = staticTokens{} })
		for _, call := range []func() error{
			func() error { _, err := c.SearchList(bg, "plasmodb", "transcript"); return err },
			func() error { _, err := c.Strategy(bg, "plasmodb", 1); return err },
			func() error { _, err := c.Searches(bg, "plasmodb", "transcript"); return err },
		} {
			err := call()
			var mt *MissingTokenError
			if !errors.As(err, &mt) || !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "add the API key") {
				t.Errorf("error = %v, want *MissingTokenError telling the user to add their key", err)
			}
		}
		if n := len(c.fake.recorded("", "/")); n != 0 {
			t.Errorf("%d requests sent without a key, want none", n)
		}
	})
	t.Run("invalid token", func(t *testing.T) {
		c := newTestClient(t, func(cfg *Config) { cfg.Tokens = staticTokens{"plasmodb": "tok-expired"} })
		_, err := c.Step(bg, "plasmodb", 1)
		var ae *AuthError
		if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
			t.Fatalf("Step() error = %v, want 401 *AuthError", err)
		}
	})
	t.Run("check token remembers the user", func(t *testing.T) {
		c := newTestClient(t, nil)
		u, err := c.CheckToken(bg, "plasmodb", registeredToken)
		if err != nil || u.ID != registeredID {
			t.Fatalf("CheckToken() = %+v, %v", u, err)
		}
		if _, err := c.Step(bg, "plasmodb", 99); !errors.Is(err, catalog.ErrNotFound) {
			t.Fatalf("Step(99) error = %v, want ErrNotFound", err)
		}
		if n := len(c.fake.recorded(http.MethodGet, "/users/current")); n != 1 {
			t.Errorf("GET /users/current called %d times, want 1 (from CheckToken)", n)
		}
	})
	t.Run("a refused id is resolved again", func(t *testing.T) {
		c := newTestClient(t, nil)
		if _, err := c.CheckToken(bg, "plasmodb", registeredToken); err != nil {
			t.Fatal(err)
		}
		c.fake.inject(http.MethodGet, "/users/376543/steps/5", fakeResponse{status: 403, body: "Permission denied"})
		if _, err := c.Step(bg, "plasmodb", 5); err == nil {
			t.Fatal("Step() succeeded after 403")
		}
		_, _ = c.Step(bg, "plasmodb", 5) // its answer is not the point: the id look-up it causes is
		if n := len(c.fake.recorded(http.MethodGet, "/users/current")); n != 2 {
			t.Errorf("GET /users/current called %d times, want 2 (the 403 dropped the cached id)", n)
		}
	})
}

func TestCatalogEndpoints(t *testing.T) {
	c := newTestClient(t, nil)
	names, err := c.RecordTypeNames(bg, "plasmodb")
	if err != nil || strings.Join(names, ",") != "transcript,pathway,jbrowse-gene" {
		t.Fatalf("RecordTypeNames() = %v, %v", names, err)
	}
	rts, err := c.RecordTypesExpanded(bg, "plasmodb")
	if err != nil {
		t.Fatal(err)
	}
	wantRT := RecordTypeInfo{Name: "transcript", FullName: "TranscriptRecordClasses.TranscriptRecordClass", DisplayName: "Gene",
		DisplayNamePlural: "Genes", RecordIDAttribute: "primary_key", PrimaryKeyColumns: []string{"gene_source_id", "source_id", "project_id"},
		Attributes: []string{"primary_key", "gene_product", "gene_type", "gene_name", "organism", "gene_location_text"}, SearchCount: 2}
	if len(rts) != 2 {
		t.Fatalf("RecordTypesExpanded() = %d record types, want 2", len(rts))
	}
	if diff := cmp.Diff(wantRT, rts[0]); diff != "" {
		t.Errorf("RecordTypesExpanded()[0] mismatch (-want +got):\n%s", diff)
	}
	one, err := c.RecordType(bg, "plasmodb", "transcript")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantRT, *one); diff != "" {
		t.Errorf("RecordType() mismatch (-want +got):\n%s", diff)
	}
	if q := c.fake.recorded(http.MethodGet, "/record-types/transcript"); len(q) == 0 || q[0].Query != "format=expanded" {
		t.Errorf("GET /record-types/transcript query = %+v, want format=expanded", q)
	}

	list, err := c.SearchList(bg, "plasmodb", "transcript")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 7 {
		t.Fatalf("SearchList() = %d searches, want 7", len(list))
	}
	kinds := map[string]catalog.SearchKind{}
	for _, s := range list {
		kinds[s.Name] = s.Kind()
	}
	wantKinds := map[string]catalog.SearchKind{"GeneByLocusTag": catalog.KindLeaf, "GenesByTaxon": catalog.KindLeaf, "GenesByGoTerm": catalog.KindLeaf,
		"GenesByText": catalog.KindLeaf, "GenesByMolecularWeight": catalog.KindLeaf, "GenesByOrthologs": catalog.KindTransform,
		"boolean_question_TranscriptRecordClasses_TranscriptRecordClass": catalog.KindCombine}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("SearchList() kinds mismatch (-want +got):\n%s", diff)
	}

	d, err := c.SearchDetails(bg, "plasmodb", "transcript", "GenesByTaxon")
	if err != nil {
		t.Fatal(err)
	}
	org, _ := d.Param("organism")
	wantOrg := Param{Param: catalog.Param{Name: "organism", DisplayName: "Organism", Help: "Choose organisms", Type: catalog.ParamMultiPick,
		DisplayType: "treeBox", IsVisible: true, Default: `["Plasmodium falciparum 3D7"]`, HasDefault: true, MinSelected: 1, MaxSelected: -1,
		Vocabulary: []catalog.Term{{Term: "Plasmodiidae", Display: "Plasmodiidae"},
			{Term: "Plasmodium falciparum 3D7", Display: "<i>P. falciparum</i> 3D7", Parent: "Plasmodiidae"},
			{Term: "Plasmodium vivax P01", Display: "<i>P. vivax</i> P01", Parent: "Plasmodiidae"}}},
		Group: "empty", TreeVocabulary: true, CountOnlyLeaves: true}
	if diff := cmp.Diff(wantOrg, *org); diff != "" {
		t.Errorf("organism parameter mismatch (-want +got):\n%s", diff)
	}
	if d.Validation.Level != "DISPLAYABLE" || !d.Validation.IsValid || d.Kind() != catalog.KindLeaf {
		t.Errorf("details validation %+v kind %s", d.Validation, d.Kind())
	}

	rd, err := c.ReviseSearch(bg, "plasmodb", "transcript", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:9999999"]`, "go_term_slim": "No"})
	if err != nil {
		t.Fatalf("ReviseSearch() error = %v", err)
	}
	wantVal := Validation{Level: "SEMANTIC", ByKey: map[string][]string{"go_typeahead": {"'GO:9999999' is not in the vocabulary"}}}
	if diff := cmp.Diff(wantVal, rd.Validation); diff != "" {
		t.Errorf("ReviseSearch() validation mismatch (-want +got):\n%s", diff)
	}
	var body struct {
		ContextParamValues map[string]string `json:"contextParamValues"`
	}
	posted := c.fake.recorded(http.MethodPost, "/record-types/transcript/searches/GenesByGoTerm")
	if err := json.Unmarshal([]byte(posted[0].Body), &body); err != nil || body.ContextParamValues["go_term_slim"] != "No" {
		t.Errorf("ReviseSearch() sent %s, want contextParamValues", posted[0].Body)
	}
	_, err = c.ReviseSearch(bg, "plasmodb", "transcript", "GenesByGoTerm", map[string]string{"nope": "1"})
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.ByKey["nope"]) != 1 {
		t.Errorf("ReviseSearch(unknown) error = %v, want a ValidationError keyed by nope", err)
	}

	deps, err := c.RefreshDependentParams(bg, "plasmodb", "transcript", "GenesByGoTerm", "go_term_slim", "Yes", map[string]string{"go_term_slim": "Yes"})
	if err != nil {
		t.Fatalf("RefreshDependentParams() error = %v", err)
	}
	if len(deps) != 1 || deps[0].Name != "go_typeahead" || len(deps[0].Vocabulary) != 4 {
		t.Errorf("RefreshDependentParams() = %+v, want go_typeahead with its vocabulary", deps)
	}
	if _, err := c.RefreshDependentParams(bg, "plasmodb", "transcript", "GenesByGoTerm", "go_term_slim", "Maybe", nil); !errors.As(err, &ve) {
		t.Errorf("RefreshDependentParams(invalid) error = %v, want *catalog.ValidationError", err)
	}

	rep, err := c.SearchReport(bg, "plasmodb", "transcript", "GenesByGoTerm",
		SearchConfig{Parameters: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_term_evidence": `["Curated"]`,
			"go_term_slim": "No", "go_typeahead": `["GO:0006412"]`, "go_term": "N/A"}},
		ReportConfig{Pagination: Pagination{NumRecords: 10}, Attributes: []string{"gene_product"}})
	if err != nil {
		t.Fatalf("SearchReport() error = %v", err)
	}
	if rep.TotalCount != 4 || rep.DisplayTotalCount == nil || *rep.DisplayTotalCount != 3 || len(rep.Records) != 4 {
		t.Errorf("SearchReport() = total %d display %v records %d; want 4 transcripts of 3 genes", rep.TotalCount, rep.DisplayTotalCount, len(rep.Records))
	}
	if id, _ := rep.Records[0].Key("source_id"); id != "PF3D7_0102200.1" || rep.Records[0].Attributes["gene_product"] == "" {
		t.Errorf("SearchReport() first record = %+v", rep.Records[0])
	}
	if n := len(c.fake.recorded(http.MethodPost, "/users/")); n != 0 {
		t.Errorf("SearchReport() created %d things in the account, want none", n)
	}
	c.fake.checkNoViolations(t)
}

func TestStepsAndStrategies(t *testing.T) {
	c := newTestClient(t, nil)
	const site = "plasmodb"
	leaf := func(goTerm string) NewStep {
		return NewStep{SearchName: "GenesByGoTerm", SearchConfig: SearchConfig{Parameters: map[string]string{
			"organism": `["Plasmodium falciparum 3D7"]`, "go_term_evidence": `["Curated","Computed"]`, "go_term_slim": "No",
			"go_typeahead": `["` + goTerm + `"]`, "go_term": "N/A"}}}
	}
	a, err := c.CreateStep(bg, site, leaf("GO:0006260"))
	if err != nil {
		t.Fatalf("CreateStep(A) error = %v", err)
	}
	b, err := c.CreateStep(bg, site, leaf("GO:0006281"))
	if err != nil {
		t.Fatal(err)
	}
	boolName := "boolean_question_TranscriptRecordClasses_TranscriptRecordClass"
	left, right := "bq_left_op_TranscriptRecordClasses_TranscriptRecordClass", "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass"
	comb, err := c.CreateStep(bg, site, NewStep{SearchName: boolName, CustomName: "replication or repair",
		SearchConfig: SearchConfig{Parameters: map[string]string{left: "", right: "", "bq_operator": "UNION"}}})
	if err != nil {
		t.Fatalf("CreateStep(boolean) error = %v", err)
	}

	// A two-value single-pick is WDK's 500: typed, never retried.
	before := len(c.fake.recorded(http.MethodPost, "/users/376543/steps"))
	_, err = c.CreateStep(bg, site, NewStep{SearchName: boolName,
		SearchConfig: SearchConfig{Parameters: map[string]string{left: "", right: "", "bq_operator": `["UNION","MINUS"]`}}})
	var se *ServerError
	if !errors.As(err, &se) || se.Status != 500 || se.LogMarker != "marker-4242" {
		t.Errorf("CreateStep(two operators) error = %v, want a 500 *ServerError with its log marker", err)
	}
	if n := len(c.fake.recorded(http.MethodPost, "/users/376543/steps")) - before; n != 1 {
		t.Errorf("the 500 was sent %d times, want 1 (no retry)", n)
	}

	// A combine given one input is WDK's 500, not 422.
	_, err = c.CreateStrategy(bg, site, NewStrategy{Name: "half", StepTree: StepTree{StepID: comb, PrimaryInput: &StepTree{StepID: a}}})
	if !errors.As(err, &se) || se.Status != 500 {
		t.Errorf("CreateStrategy(half-wired) error = %v, want a 500 *ServerError", err)
	}

	tree := StepTree{StepID: comb, PrimaryInput: &StepTree{StepID: a}, SecondaryInput: &StepTree{StepID: b}}
	sid, err := c.CreateStrategy(bg, site, NewStrategy{Name: "Replication or repair", StepTree: tree})
	if err != nil {
		t.Fatalf("CreateStrategy() error = %v", err)
	}
	posted := c.fake.recorded(http.MethodPost, "/users/376543/strategies")
	wantBody := `{"name":"Replication or repair","isSaved":false,"isPublic":false,"stepTree":{"stepId":103,"primaryInput":{"stepId":101},"secondaryInput":{"stepId":102}}}`
	if got := posted[len(posted)-1].Body; got != wantBody {
		t.Errorf("CreateStrategy() body\n got %s\nwant %s", got, wantBody)
	}

	st, err := c.Strategy(bg, site, sid)
	if err != nil {
		t.Fatalf("Strategy() error = %v", err)
	}
	if st.RootStepID != comb || st.EstimatedSize == nil || *st.EstimatedSize != 4 || len(st.Steps) != 3 || st.Steps[comb].SearchConfig.Parameters[left] != "101" {
		t.Errorf("Strategy() = %+v, want root %d, size 4, 3 steps with wired inputs", st, comb)
	}
	if diff := cmp.Diff(tree, st.StepTree); diff != "" {
		t.Errorf("Strategy().StepTree mismatch (-want +got):\n%s", diff)
	}

	step, err := c.Step(bg, site, comb)
	if err != nil {
		t.Fatal(err)
	}
	w0 := 0
	wantStep := &Step{ID: comb, SearchName: boolName, RecordType: "transcript", CustomName: "replication or repair", DisplayName: boolName,
		StrategyID: &sid, SearchConfig: SearchConfig{Parameters: map[string]string{left: "101", right: "102", "bq_operator": "UNION"}, WDKWeight: &w0, Filters: []StepFilter{}},
		Validation: Validation{Level: "RUNNABLE", IsValid: true}}
	four := int64(4)
	wantStep.EstimatedSize = &four
	if diff := cmp.Diff(wantStep, step, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Step() mismatch (-want +got):\n%s", diff)
	}

	name := "Genes in replication or repair"
	if err := c.UpdateStep(bg, site, comb, StepMeta{CustomName: &name}); err != nil {
		t.Fatalf("UpdateStep() error = %v", err)
	}
	if s, _ := c.Step(bg, site, comb); s.CustomName != name {
		t.Errorf("after UpdateStep() CustomName = %q", s.CustomName)
	}

	// search-config: answer params must stay byte-identical.
	cfg := step.SearchConfig
	cfg.Parameters = map[string]string{left: "101", right: "102", "bq_operator": "INTERSECT"}
	if err := c.PutSearchConfig(bg, site, comb, cfg); err != nil {
		t.Fatalf("PutSearchConfig() error = %v", err)
	}
	cfg.Parameters = map[string]string{left: "", right: "102", "bq_operator": "INTERSECT"}
	var ve *catalog.ValidationError
	if err := c.PutSearchConfig(bg, site, comb, cfg); !errors.As(err, &ve) || len(ve.General) != 1 {
		t.Errorf("PutSearchConfig(changed input) error = %v, want a *catalog.ValidationError", err)
	}

	rep, err := c.StepReport(bg, site, comb, ReportConfig{Pagination: Pagination{NumRecords: 5}})
	if err != nil {
		t.Fatalf("StepReport() error = %v", err)
	}
	if *rep.DisplayTotalCount != 1 { // INTERSECT(replication, repair) = gene 4
		t.Errorf("StepReport() display count = %d, want 1", *rep.DisplayTotalCount)
	}

	var ce *ConflictError
	if err := c.DeleteStep(bg, site, a); !errors.As(err, &ce) {
		t.Errorf("DeleteStep(in a strategy) error = %v, want *ConflictError", err)
	}
	// Replace the tree by step A alone; the other steps are orphaned and
	// may then be deleted.
	if err := c.PutStepTree(bg, site, sid, StepTree{StepID: a}); err != nil {
		t.Fatalf("PutStepTree() error = %v", err)
	}
	if err := c.DeleteStep(bg, site, b); err != nil {
		t.Errorf("DeleteStep(orphan) error = %v", err)
	}
	if _, err := c.Step(bg, site, b); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("Step(deleted) error = %v, want ErrNotFound", err)
	}
	orphan, err := c.CreateStep(bg, site, leaf("GO:0006412"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.StepReport(bg, site, orphan, ReportConfig{}); !errors.As(err, &ve) || !strings.Contains(err.Error(), "not part of a strategy") {
		t.Errorf("StepReport(outside a strategy) error = %v, want a *catalog.ValidationError", err)
	}
	if err := c.DeleteStrategy(bg, site, sid); err != nil {
		t.Fatalf("DeleteStrategy() error = %v", err)
	}
	if _, err := c.Strategy(bg, site, sid); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("Strategy(deleted) error = %v, want ErrNotFound", err)
	}
	for _, r := range c.fake.recorded("", "/users/") {
		if r.Path != "/users/current" && !strings.HasPrefix(r.Path, "/users/376543/") {
			t.Errorf("%s %s: want the numeric user id", r.Method, r.Path)
		}
	}
	c.fake.checkNoViolations(t)
}

func TestErrorTypes(t *testing.T) {
	const path = "/users/376543/steps/7"
	tests := []struct {
		name  string
		resp  fakeResponse
		check func(error) bool
	}{
		{"400", fakeResponse{status: 400, body: "JSON schema validation failed: extraneous key [viewFilters]"},
			func(err error) bool { var e *RequestError; return errors.As(err, &e) && e.Status == 400 }},
		{"401", fakeResponse{status: 401, body: "Valid API Key required for this endpoint."},
			func(err error) bool { var e *AuthError; return errors.As(err, &e) && e.Status == 401 }},
		{"403", fakeResponse{status: 403, body: "This endpoint is only available to registered users, and requires an API key."},
			func(err error) bool { var e *AuthError; return errors.As(err, &e) && e.Status == 403 }},
		{"404", fakeResponse{status: 404, body: "Step 7 not found"},
			func(err error) bool {
				var e *NotFoundError
				return errors.As(err, &e) && errors.Is(err, catalog.ErrNotFound)
			}},
		{"409", fakeResponse{status: 409, body: "Step 7 is part of a strategy"},
			func(err error) bool { var e *ConflictError; return errors.As(err, &e) }},
		{"422 bundle", fakeResponse{status: 422, header: map[string]string{"Content-Type": "text/plain"},
			body: `{"level":"SEMANTIC","isValid":false,"errors":{"general":[],"byKey":{"organism":["Cannot be empty."]}}}`},
			func(err error) bool {
				var e *catalog.ValidationError
				return errors.As(err, &e) && cmp.Equal(e.ByKey, map[string][]string{"organism": {"Cannot be empty."}})
			}},
		{"422 unknown parameter", fakeResponse{status: 422, body: "Parameter 'organsim' is not in container 'GenesByTaxon'"},
			func(err error) bool {
				var e *catalog.ValidationError
				return errors.As(err, &e) && len(e.ByKey["organsim"]) == 1
			}},
		{"422 unknown parameter as WDK wraps it", fakeResponse{status: 422, header: map[string]string{"Content-Type": "text/plain"},
			body: `{"level":"SEMANTIC","isValid":false,"errors":{"general":["Parameter 'organsim' is not in container 'GenesByTaxon'\n"],"byKey":{}}}`},
			func(err error) bool {
				var e *catalog.ValidationError
				return errors.As(err, &e) && len(e.ByKey["organsim"]) == 1 && len(e.General) == 0
			}},
		{"422 plain", fakeResponse{status: 422, body: "Step 7 is not part of a strategy, so cannot run."},
			func(err error) bool { var e *catalog.ValidationError; return errors.As(err, &e) && len(e.General) == 1 }},
		{"500", fakeResponse{status: 500, header: map[string]string{"X-Log-Marker": "m-1"}, body: "Internal Error"},
			func(err error) bool {
				var e *ServerError
				return errors.As(err, &e) && e.Status == 500 && e.LogMarker == "m-1" && e.Attempts == 1
			}},
		{"413 from the proxy", fakeResponse{status: 413, header: map[string]string{"Content-Type": "text/html"}, body: "<html><body>Request Entity Too Large</body></html>"},
			func(err error) bool {
				var e *RequestError
				return errors.As(err, &e) && e.Status == 413 && e.Message == ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, nil)
			c.fake.inject(http.MethodGet, path, tt.resp)
			_, err := c.Step(bg, "plasmodb", 7)
			if err == nil || !tt.check(err) {
				t.Fatalf("Step() error = %v (%T)", err, errors.Unwrap(err))
			}
			if n := len(c.fake.recorded(http.MethodGet, path)); n != 1 {
				t.Errorf("sent %d times, want 1: a %d is not retried", n, tt.resp.status)
			}
			if !strings.HasPrefix(err.Error(), "wdk: plasmodb: get step 7: ") {
				t.Errorf("error %q lacks the site and operation", err)
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	c := newTestClient(t, nil)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	_, err := c.ServiceInfo(ctx, "plasmodb")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ServiceInfo(cancelled) error = %v, want context.Canceled", err)
	}
}

// TestPathSegmentsStayInTheirPlace: a record type or search name that is
// a dot segment, or holds a slash or a backslash (escaped or not), could
// make the site (or a proxy before it, which normalises the path) serve
// another resource than the one named: /record-types/transcript/searches/..
// is /record-types/transcript. Such names are refused as not found,
// before any request is sent.
func TestPathSegmentsStayInTheirPlace(t *testing.T) {
	c := newTestClient(t, nil)
	before := len(c.fake.recorded("", ""))
	for _, bad := range []string{"..", ".", "", "../..", "../../users/current", "a/b", "a\\b", "..\\..", "/", "%2e%2e", "..%2f..", "a%2Fb", "a\x00b", "a\nb"} {
		calls := map[string]func() error{
			"RecordType": func() error { _, err := c.RecordType(bg, "plasmodb", bad); return err },
			"SearchList": func() error { _, err := c.SearchList(bg, "plasmodb", bad); return err },
			"SearchDetails of the record type": func() error {
				_, err := c.SearchDetails(bg, "plasmodb", bad, "GenesByTaxon")
				return err
			},
			"SearchDetails": func() error { _, err := c.SearchDetails(bg, "plasmodb", "transcript", bad); return err },
			"ReviseSearch": func() error {
				_, err := c.ReviseSearch(bg, "plasmodb", "transcript", bad, map[string]string{})
				return err
			},
			"RefreshDependentParams": func() error {
				_, err := c.RefreshDependentParams(bg, "plasmodb", "transcript", bad, "organism", "x", map[string]string{})
				return err
			},
			"SearchReport": func() error {
				_, err := c.SearchReport(bg, "plasmodb", "transcript", bad, SearchConfig{}, ReportConfig{})
				return err
			},
		}
		for name, call := range calls {
			if err := call(); !errors.Is(err, catalog.ErrNotFound) {
				t.Errorf("%s with %q = %v, want not found", name, bad, err)
			}
		}
	}
	if sent := c.fake.recorded("", "")[before:]; len(sent) != 0 {
		t.Errorf("requests sent for refused names: %+v", sent)
	}
}
