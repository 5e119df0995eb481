package wdk

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
	"strategist/internal/catalog/wdk/wdkfake"
)

func TestAnswerLeaf(t *testing.T) {
	c := newTestClient(t, nil)
	// The organism parent node stands for its leaves; sent as the parent,
	// the live site counts nothing.
	q := &catalog.Query{Search: "GenesByTaxon", Params: map[string]string{"organism": `["Plasmodiidae"]`}, Weight: 3}
	a, err := c.Answer(bg, "plasmodb", q, catalog.Page{Offset: 0, Limit: 4})
	if err != nil {
		t.Fatalf("Answer() error = %v", err)
	}
	want := &catalog.Answer{
		Count: 8,
		Records: []catalog.Record{
			{GeneID: "PF3D7_0100100", Product: "erythrocyte membrane protein 1, PfEMP1", GeneType: "protein_coding", Organism: "Plasmodium falciparum 3D7", Chromosome: "Pf3D7_01_v3", Weight: 3},
			{GeneID: "PF3D7_0102200", Product: "ring-infected erythrocyte surface antigen", GeneType: "protein_coding", Organism: "Plasmodium falciparum 3D7", Chromosome: "Pf3D7_01_v3", Weight: 3},
			// PF3D7_0201800 has two transcripts: one record.
			{GeneID: "PF3D7_0201800", Product: "60S ribosomal protein L7", GeneType: "protein_coding", Organism: "Plasmodium falciparum 3D7", Chromosome: "Pf3D7_02_v3", Weight: 3},
		},
		Provenance: catalog.Provenance{Source: "PlasmoDB (live VEuPathDB WDK service)", Release: "68", Year: 2024, Offline: false},
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("Answer() mismatch (-want +got):\n%s", diff)
	}
	reports := c.fake.recorded(http.MethodPost, "/record-types/transcript/searches/GenesByTaxon/reports/standard")
	if len(reports) != 1 {
		t.Fatalf("%d stateless reports, want 1", len(reports))
	}
	var body struct {
		SearchConfig SearchConfig `json:"searchConfig"`
		ReportConfig ReportConfig `json:"reportConfig"`
	}
	if err := json.Unmarshal([]byte(reports[0].Body), &body); err != nil {
		t.Fatal(err)
	}
	w := 3
	wantBody := SearchConfig{Parameters: map[string]string{"organism": `["Plasmodium falciparum 3D7","Plasmodium vivax P01"]`}, WDKWeight: &w}
	if diff := cmp.Diff(wantBody, body.SearchConfig); diff != "" {
		t.Errorf("report searchConfig mismatch (-want +got):\n%s", diff)
	}
	wantRC := ReportConfig{Pagination: Pagination{NumRecords: 4}, Attributes: []string{"gene_product", "gene_type", "gene_name", "organism", "gene_location_text", "wdk_weight"},
		Sorting: []Sort{{AttributeName: "primary_key", Direction: "ASC"}}}
	if diff := cmp.Diff(wantRC, body.ReportConfig); diff != "" {
		t.Errorf("reportConfig mismatch (-want +got):\n%s", diff)
	}
	if n := len(c.fake.recorded("", "/users/")); n != 0 {
		t.Errorf("a leaf answer made %d requests in the user's account, want none", n)
	}

	count, err := c.Answer(bg, "plasmodb", &catalog.Query{Search: "GenesByGoTerm", Params: map[string]string{"go_typeahead": `["GO:0006412"]`}}, catalog.Page{})
	if err != nil || count.Count != 3 || len(count.Records) != 0 {
		t.Errorf("Answer(count only) = %+v, %v; want 3 genes, no records", count, err)
	}
	c.fake.checkNoViolations(t)
}

func goTerm(term string, weight int) *catalog.Query {
	return &catalog.Query{Search: "GenesByGoTerm", Params: map[string]string{"go_typeahead": `["` + term + `"]`}, Weight: weight}
}

const boolSearch = "boolean_question_TranscriptRecordClasses_TranscriptRecordClass"

func TestAnswerThreeStepTree(t *testing.T) {
	c := newTestClient(t, nil)
	// DNA replication (genes 2,3,4) UNION DNA repair (genes 4,5).
	q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "UNION"},
		Inputs: []*catalog.Query{goTerm("GO:0006260", 10), goTerm("GO:0006281", 5)}}
	a, err := c.Answer(bg, "plasmodb", q, catalog.Page{Limit: 10})
	if err != nil {
		t.Fatalf("Answer() error = %v", err)
	}
	var got []string
	for _, r := range a.Records {
		got = append(got, r.GeneID+"="+string(rune('0'+r.Weight/10))+string(rune('0'+r.Weight%10)))
	}
	want := []string{"PF3D7_0201800=10", "PF3D7_0309600=10", "PF3D7_0414900=15", "PF3D7_1017500=05"}
	if diff := cmp.Diff(want, got); diff != "" || a.Count != 4 {
		t.Errorf("Answer() count %d records (-want +got):\n%s", a.Count, diff)
	}

	// What the client sent: three steps, input-step parameters "", names
	// read from the boolean search, weights, multi-picks as JSON arrays.
	steps := c.fake.recorded(http.MethodPost, "/users/376543/steps")
	var bodies []NewStep
	for _, r := range steps {
		if strings.HasSuffix(r.Path, "/steps") {
			var s NewStep
			if err := json.Unmarshal([]byte(r.Body), &s); err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, s)
		}
	}
	if len(bodies) != 3 {
		t.Fatalf("%d steps created, want 3", len(bodies))
	}
	var sawBool int
	for _, b := range bodies {
		switch b.SearchName {
		case boolSearch:
			sawBool++
			want := map[string]string{"bq_left_op_TranscriptRecordClasses_TranscriptRecordClass": "",
				"bq_right_op_TranscriptRecordClasses_TranscriptRecordClass": "", "bq_operator": "UNION"}
			if diff := cmp.Diff(want, b.SearchConfig.Parameters); diff != "" {
				t.Errorf("boolean step parameters mismatch (-want +got):\n%s", diff)
			}
		case "GenesByGoTerm":
			p := b.SearchConfig.Parameters
			if p["organism"] != `["Plasmodium falciparum 3D7"]` || p["go_term_evidence"] != `["Curated","Computed"]` || p["go_term"] != "N/A" || len(p) != 5 {
				t.Errorf("leaf step parameters = %v, want every parameter, multi-picks as JSON arrays", p)
			}
			if b.SearchConfig.WDKWeight == nil || (*b.SearchConfig.WDKWeight != 10 && *b.SearchConfig.WDKWeight != 5) {
				t.Errorf("leaf step wdkWeight = %v", b.SearchConfig.WDKWeight)
			}
		}
	}
	if sawBool != 1 {
		t.Errorf("%d boolean steps, want 1", sawBool)
	}

	strat := c.fake.recorded(http.MethodPost, "/users/376543/strategies")
	if len(strat) != 1 {
		t.Fatalf("%d strategies created, want 1", len(strat))
	}
	var ns struct {
		Name     string   `json:"name"`
		IsSaved  bool     `json:"isSaved"`
		StepTree StepTree `json:"stepTree"`
	}
	if err := json.Unmarshal([]byte(strat[0].Body), &ns); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ns.Name, "__strategist_temp__:") || ns.IsSaved {
		t.Errorf("strategy name %q saved %v, want the temporary prefix, unsaved", ns.Name, ns.IsSaved)
	}
	// The left operand (replication, weight 10) is the primary input.
	root, rootOK := c.fake.Step(ns.StepTree.StepID)
	var left, right wdkfake.StepState
	var inputsOK bool
	if ns.StepTree.PrimaryInput != nil && ns.StepTree.SecondaryInput != nil {
		var lok, rok bool
		left, lok = c.fake.Step(ns.StepTree.PrimaryInput.StepID)
		right, rok = c.fake.Step(ns.StepTree.SecondaryInput.StepID)
		inputsOK = lok && rok
	}
	if !rootOK || root.Search != boolSearch || !inputsOK || left.Weight != 10 || right.Weight != 5 ||
		ns.StepTree.PrimaryInput.PrimaryInput != nil || ns.StepTree.SecondaryInput.SecondaryInput != nil {
		t.Errorf("stepTree = %+v, want the boolean over (replication, repair)", ns.StepTree)
	}
	if n := len(c.fake.recorded(http.MethodDelete, "/users/376543/strategies/")); n != 1 {
		t.Errorf("temporary strategy deleted %d times, want 1", n)
	}
	c.fake.checkNoViolations(t)
}

func TestAnswerTransformOverCombine(t *testing.T) {
	c := newTestClient(t, nil)
	// Orthologs(INTERSECT(translation, replication)), the build sequence of
	// the WDK notes.
	q := &catalog.Query{Search: "GenesByOrthologs", Params: map[string]string{"organism": `["Plasmodiidae"]`},
		Inputs: []*catalog.Query{{Search: boolSearch, Params: map[string]string{"bq_operator": "INTERSECT"},
			Inputs: []*catalog.Query{goTerm("GO:0006412", 1), goTerm("GO:0006260", 2)}}}}
	a, err := c.Answer(bg, "plasmodb", q, catalog.Page{Limit: 10})
	if err != nil {
		t.Fatalf("Answer() error = %v", err)
	}
	var ids []string
	for _, r := range a.Records {
		ids = append(ids, r.GeneID)
	}
	if diff := cmp.Diff([]string{"PF3D7_0201800", "PF3D7_0309600"}, ids); diff != "" || a.Count != 2 {
		t.Errorf("Answer() = count %d (-want +got):\n%s", a.Count, diff)
	}
	strat := c.fake.recorded(http.MethodPost, "/users/376543/strategies")
	var ns struct {
		StepTree json.RawMessage `json:"stepTree"`
	}
	if err := json.Unmarshal([]byte(strat[0].Body), &ns); err != nil {
		t.Fatal(err)
	}
	var shape func(raw json.RawMessage) string
	shape = func(raw json.RawMessage) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		s := "step"
		for _, k := range []string{"primaryInput", "secondaryInput"} {
			if in, ok := m[k]; ok {
				s += " " + k + "(" + shape(in) + ")"
			}
		}
		return s
	}
	if got := shape(ns.StepTree); got != "step primaryInput(step primaryInput(step) secondaryInput(step))" {
		t.Errorf("stepTree shape = %s", got)
	}
	c.fake.checkNoViolations(t)
}

func TestAnswerErrors(t *testing.T) {
	t.Run("wrong number of inputs", func(t *testing.T) {
		c := newTestClient(t, nil)
		_, err := c.Answer(bg, "plasmodb", &catalog.Query{Search: boolSearch, Inputs: []*catalog.Query{goTerm("GO:0006412", 0)}}, catalog.Page{})
		var ve *catalog.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "takes 2 input step(s)") {
			t.Fatalf("Answer() error = %v", err)
		}
		if n := len(c.fake.recorded("", "/users/")); n != 0 {
			t.Errorf("%d account requests for an invalid tree, want none", n)
		}
	})
	t.Run("invalid leaf parameters", func(t *testing.T) {
		c := newTestClient(t, nil)
		q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "XOR"},
			Inputs: []*catalog.Query{goTerm("GO:0006412", 0), goTerm("GO:0006260", 0)}}
		_, err := c.Answer(bg, "plasmodb", q, catalog.Page{})
		var ve *catalog.ValidationError
		if !errors.As(err, &ve) || len(ve.ByKey["bq_operator"]) != 1 {
			t.Fatalf("Answer() error = %v, want bq_operator keyed", err)
		}
	})
	t.Run("a failed step creation deletes the steps made", func(t *testing.T) {
		c := newTestClient(t, func(cfg *Config) { cfg.Concurrency = 1 })
		c.fake.inject(http.MethodPost, "/users/376543/steps", fakeResponse{status: 200, body: `{"id": 101}`},
			fakeResponse{status: 422, body: `{"level":"SEMANTIC","isValid":false,"errors":{"general":[],"byKey":{"go_typeahead":["'GO:1' is not in the vocabulary"]}}}`})
		c.fake.PutStep(wdkfake.StepState{ID: 101, Owner: registeredID, Search: "GenesByGoTerm"})
		q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "UNION"},
			Inputs: []*catalog.Query{goTerm("GO:0006412", 0), goTerm("GO:0006260", 0)}}
		_, err := c.Answer(bg, "plasmodb", q, catalog.Page{})
		var ve *catalog.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("Answer() error = %v, want the step's ValidationError", err)
		}
		if n := len(c.fake.recorded(http.MethodDelete, "/users/376543/steps/101")); n != 1 {
			t.Errorf("step 101 deleted %d times, want 1", n)
		}
		if n := len(c.fake.recorded(http.MethodPost, "/users/376543/strategies")); n != 0 {
			t.Errorf("%d strategies created after a failed step, want none", n)
		}
	})
	t.Run("a failed strategy creation deletes the steps", func(t *testing.T) {
		c := newTestClient(t, nil)
		c.fake.inject(http.MethodPost, "/users/376543/strategies", fakeResponse{status: 500, body: "Internal Error"})
		q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "UNION"},
			Inputs: []*catalog.Query{goTerm("GO:0006412", 0), goTerm("GO:0006260", 0)}}
		_, err := c.Answer(bg, "plasmodb", q, catalog.Page{})
		var se *ServerError
		if !errors.As(err, &se) {
			t.Fatalf("Answer() error = %v, want *ServerError", err)
		}
		if n := len(c.fake.recorded(http.MethodDelete, "/users/376543/steps/")); n != 3 {
			t.Errorf("%d steps deleted, want 3", n)
		}
	})
	t.Run("the strategy is deleted when the report fails", func(t *testing.T) {
		c := newTestClient(t, nil)
		// Steps are created concurrently: whichever id the root gets, its
		// report fails.
		for _, id := range []string{"101", "102", "103"} {
			c.fake.inject(http.MethodPost, "/users/376543/steps/"+id+"/reports/standard", fakeResponse{status: 500, body: "Internal Error"})
		}
		q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "UNION"},
			Inputs: []*catalog.Query{goTerm("GO:0006412", 0), goTerm("GO:0006260", 0)}}
		c.fake.ResetStepIDs(100)
		if _, err := c.Answer(bg, "plasmodb", q, catalog.Page{Limit: 1}); err == nil {
			t.Fatal("Answer() succeeded")
		}
		reports := c.fake.recorded(http.MethodPost, "/users/376543/steps/")
		if len(reports) == 0 || !strings.HasSuffix(reports[len(reports)-1].Path, "/reports/standard") {
			t.Fatalf("no report was asked for: %+v", reports)
		}
		if n := len(c.fake.recorded(http.MethodDelete, "/users/376543/strategies/")); n != 1 {
			t.Errorf("temporary strategy deleted %d times, want 1", n)
		}
	})
	t.Run("missing key", func(t *testing.T) {
		c := newTestClient(t, func(cfg *Config) { cfg.Tokens = staticTokens{} })
		_, err := c.Answer(bg, "plasmodb", goTerm("GO:0006412", 0), catalog.Page{})
		if !errors.Is(err, ErrNoToken) {
			t.Fatalf("Answer() error = %v, want ErrNoToken", err)
		}
	})
}

func TestAnswerCleansUpWhenTheCallerGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newBubbleClient(t, nil)
		for _, id := range []string{"101", "102", "103"} {
			c.fake.inject(http.MethodPost, "/users/376543/steps/"+id+"/reports/standard",
				fakeResponse{status: 503, header: map[string]string{"Retry-After": "20"}})
		}
		ctx, cancel := context.WithTimeout(bg, 5*time.Second)
		defer cancel()
		q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "UNION"},
			Inputs: []*catalog.Query{goTerm("GO:0006412", 0), goTerm("GO:0006260", 0)}}
		if _, err := c.Answer(ctx, "plasmodb", q, catalog.Page{Limit: 5}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Answer() error = %v, want DeadlineExceeded", err)
		}
		if n := len(c.fake.recorded(http.MethodDelete, "/users/376543/strategies/")); n != 1 {
			t.Errorf("temporary strategy deleted %d times after the deadline, want 1", n)
		}
	})
}
