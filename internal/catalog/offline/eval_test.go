package offline

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

// answerWeights runs q and returns every gene with its weight.
func answerWeights(t *testing.T, c *Catalog, q *catalog.Query) map[string]int {
	t.Helper()
	a, err := c.Answer(context.Background(), site, q, catalog.Page{Limit: 10000})
	if err != nil {
		t.Fatalf("Answer(%s): %v", q.Search, err)
	}
	if a.Count != len(a.Records) {
		t.Fatalf("Answer(%s): Count %d but %d records", q.Search, a.Count, len(a.Records))
	}
	out := make(map[string]int, len(a.Records))
	for _, r := range a.Records {
		out[r.GeneID] = r.Weight
	}
	return out
}

func withWeight(set map[string]bool, w int) map[string]int {
	out := make(map[string]int, len(set))
	for g := range set {
		out[g] = w
	}
	return out
}

// TestFigures checks the evaluator against counts computed here from the
// raw export files.
func TestFigures(t *testing.T) {
	c := testCatalog(t)
	raw := readRaw(t, testDataDir(t))

	trna := raw.OfType("tRNA encoding")
	replRepair := union(raw.GO("GO:0006260"), raw.GO("GO:0006281"))
	notOn14 := map[string]bool{}
	for g := range replRepair {
		if raw.Sequence[g] != "Pf3D7_14_v3" {
			notOn14[g] = true
		}
	}
	tests := []struct {
		name      string
		q         *catalog.Query
		want      map[string]bool
		wantCount int // the published figure (README, catalog examples)
	}{
		{"GenesByTaxon", &catalog.Query{Search: "GenesByTaxon", Params: map[string]string{"organism": testOrg}}, raw.All(), 5712},
		{"GenesByGoTerm translation", goQuery(0, "GO:0006412"), raw.GO("GO:0006412"), 286},
		{"GenesByGeneType tRNA", &catalog.Query{Search: "GenesByGeneType", Params: map[string]string{"organism": testOrg, "geneType": `["tRNA encoding"]`}}, trna, 79},
		{"UNION replication repair", boolQuery(opUnion, goQuery(0, "GO:0006260"), goQuery(0, "GO:0006281")), replRepair, 108},
		{"union MINUS chromosome 14", boolQuery(opMinus, boolQuery(opUnion, goQuery(0, "GO:0006260"), goQuery(0, "GO:0006281")), chromosomeQuery("Pf3D7_14_v3")), notOn14, 89},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.want) != tt.wantCount {
				t.Errorf("raw files give %d genes, the stated figure is %d", len(tt.want), tt.wantCount)
			}
			got := answerWeights(t, c, tt.q)
			if diff := cmp.Diff(withWeight(tt.want, 0), got); diff != "" {
				t.Errorf("Answer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBooleanOperators checks every operator's genes and weights: INTERSECT
// and UNION add weights, MINUS and LONLY keep the left weight, RMINUS and
// RONLY the right one, and LONLY/RONLY ignore the other input.
func TestBooleanOperators(t *testing.T) {
	c := testCatalog(t)
	raw := readRaw(t, testDataDir(t))
	l, r := raw.GO("GO:0006260"), raw.GO("GO:0006281")
	const wl, wr = 10, 5
	both, onlyL, onlyR := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for g := range union(l, r) {
		switch {
		case l[g] && r[g]:
			both[g] = true
		case l[g]:
			onlyL[g] = true
		default:
			onlyR[g] = true
		}
	}
	if len(both) == 0 || len(onlyL) == 0 || len(onlyR) == 0 {
		t.Fatal("test sets must overlap partly")
	}
	merge := func(ms ...map[string]int) map[string]int {
		out := map[string]int{}
		for _, m := range ms {
			maps.Copy(out, m)
		}
		return out
	}
	tests := []struct {
		op   string
		want map[string]int
	}{
		{opIntersect, withWeight(both, wl+wr)},
		{opUnion, merge(withWeight(onlyL, wl), withWeight(onlyR, wr), withWeight(both, wl+wr))},
		{opMinus, withWeight(onlyL, wl)},
		{opRMinus, withWeight(onlyR, wr)},
		{opLOnly, withWeight(l, wl)},
		{opROnly, withWeight(r, wr)},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			got := answerWeights(t, c, boolQuery(tt.op, goQuery(wl, "GO:0006260"), goQuery(wr, "GO:0006281")))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", tt.op, diff)
			}
		})
	}
}

// TestWeightFilter follows weights 10 and 5 through UNION into
// GenesByWeightFilter, whose bounds are inclusive.
func TestWeightFilter(t *testing.T) {
	c := testCatalog(t)
	raw := readRaw(t, testDataDir(t))
	l, r := raw.GO("GO:0006412"), raw.GO("GO:0006260")
	tests := []struct {
		name     string
		min, max string
		keep     func(inL, inR bool) bool
		weight   func(inL, inR bool) int
	}{
		{"min 12 keeps genes of both", "12", "100", func(a, b bool) bool { return a && b }, nil},
		{"exactly 10 keeps left-only", "10", "10", func(a, b bool) bool { return a && !b }, nil},
		{"exactly 5 keeps right-only", "5", "5", func(a, b bool) bool { return !a && b }, nil},
		{"0 to 100 keeps all", "0", "100", func(a, b bool) bool { return true }, nil},
		{"16 and up keeps none", "16", "100", func(a, b bool) bool { return false }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := map[string]int{}
			for g := range union(l, r) {
				w := 0
				if l[g] {
					w += 10
				}
				if r[g] {
					w += 5
				}
				if tt.keep(l[g], r[g]) {
					want[g] = w
				}
			}
			q := &catalog.Query{
				Search: "GenesByWeightFilter",
				Params: map[string]string{"min_weight": tt.min, "max_weight": tt.max},
				Inputs: []*catalog.Query{boolQuery(opUnion, goQuery(10, "GO:0006412"), goQuery(5, "GO:0006260"))},
			}
			if diff := cmp.Diff(want, answerWeights(t, c, q)); diff != "" {
				t.Errorf("GenesByWeightFilter mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotEvaluable(t *testing.T) {
	c := testCatalog(t)
	leaf := func(search string, params map[string]string) *catalog.Query {
		return &catalog.Query{Search: search, Params: params}
	}
	org := map[string]string{"organism": testOrg}
	withOrg := func(kv ...string) map[string]string {
		m := maps.Clone(org)
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	taxon := leaf("GenesByTaxon", org)
	tests := []struct {
		name       string
		q          *catalog.Query
		wantSearch string
	}{
		{"molecular weight", leaf("GenesByMolecularWeight", org), "GenesByMolecularWeight"},
		{"isoelectric point", leaf("GenesByIsoelectricPoint", org), "GenesByIsoelectricPoint"},
		{"exon count", leaf("GenesByExonCount", org), "GenesByExonCount"},
		{"transmembrane", leaf("GenesByTransmembraneDomains", org), "GenesByTransmembraneDomains"},
		{"signal peptide", leaf("GenesWithSignalPeptide", withOrg("signalp_version", "SignalP 4")), "GenesWithSignalPeptide"},
		{"ec number", leaf("GenesByEcNumber", withOrg("ec_source", `["any"]`, "ec_number_pattern", "2.7.11.1")), "GenesByEcNumber"},
		{"interpro", leaf("GenesByInterproDomain", withOrg("domain_typeahead", `["PF00069"]`)), "GenesByInterproDomain"},
		{"paralogs", leaf("GenesByParalogCount", org), "GenesByParalogCount"},
		{"intron junctions", leaf("GenesByIntronJunctions", org), "GenesByIntronJunctions"},
		{"export", leaf("GenesByExportPrediction", org), "GenesByExportPrediction"},
		{"pathway", leaf("GenesByMetabolicPathway", withOrg("metabolic_pathway_id_with_genes", "ec00010")), "GenesByMetabolicPathway"},
		{"ortholog pattern", leaf("GenesByOrthologPattern", org), "GenesByOrthologPattern"},
		{"orthologs transform", &catalog.Query{Search: "GenesByOrthologs", Params: org, Inputs: []*catalog.Query{taxon}}, "GenesByOrthologs"},
		{"span logic", &catalog.Query{Search: "GenesBySpanLogic", Params: map[string]string{"span_sentence": "A overlaps B"}, Inputs: []*catalog.Query{taxon, taxon}}, "GenesBySpanLogic"},
		{"location sub-range", leaf("GenesByLocation", map[string]string{"chromosomeOptional": "Pf3D7_05_v3", "start_point": "1000", "end_point": "50000"}), "GenesByLocation"},
		{"location unknown contig", leaf("GenesByLocation", map[string]string{"sequenceId": "Pf3D7_99_v3"}), "GenesByLocation"},
		{"pseudogenes only", leaf("GenesByGeneType", withOrg("geneType", `["protein coding"]`, "includePseudogenes", "Pseudogenes Only")), "GenesByGeneType"},
		{"GO wildcard text", leaf("GenesByGoTerm", withOrg("go_typeahead", `["GO:0006412"]`, "go_term", "*kinase*")), "GenesByGoTerm"},
		{"GO curated evidence only", leaf("GenesByGoTerm", withOrg("go_typeahead", `["GO:0006412"]`, "go_term_evidence", `["Curated"]`)), "GenesByGoTerm"},
		{"GO computed evidence only", leaf("GenesByGoTerm", withOrg("go_typeahead", `["GO:0006412"]`, "go_term_evidence", "Computed")), "GenesByGoTerm"},
		{"GO slim only", leaf("GenesByGoTerm", withOrg("go_typeahead", `["GO:0006412"]`, "go_term_slim", "Yes")), "GenesByGoTerm"},
		{"organism group only", leaf("GenesByTaxon", map[string]string{"organism": `["Plasmodium"]`}), "GenesByTaxon"},
		{"live dataset id", leaf("GeneByLocusTag", map[string]string{"ds_gene_ids": "123456"}), "GeneByLocusTag"},
		{"deep in a tree", boolQuery(opIntersect, taxon, boolQuery(opUnion, goQuery(0, "GO:0006412"), leaf("GenesByMolecularWeight", org))), "GenesByMolecularWeight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := c.Answer(context.Background(), site, tt.q, catalog.Page{Limit: 5})
			ne, ok := errors.AsType[*catalog.NotEvaluableError](err)
			if !ok {
				t.Fatalf("Answer = %+v, %v; want *catalog.NotEvaluableError", a, err)
			}
			if ne.Search != tt.wantSearch || ne.Reason == "" {
				t.Errorf("NotEvaluableError = %+v, want search %s with a reason", ne, tt.wantSearch)
			}
		})
	}
}

// TestGOEvidenceAndSlim: the 2017 file has no evidence codes and no GO
// slim flags, so only the defaults (both kinds of evidence, slim No) are
// answered, with the file's own set; any other value is not evaluable,
// naming the parameter, never the unfiltered count.
func TestGOEvidenceAndSlim(t *testing.T) {
	c := testCatalog(t)
	raw := readRaw(t, testDataDir(t))
	want := withWeight(raw.GOSets["GO:0006412"], 0)
	for _, params := range []map[string]string{
		{},
		{"go_term_evidence": `["Curated","Computed"]`, "go_term_slim": "No"},
		{"go_term_evidence": `["Computed","Curated"]`},
	} {
		q := goQuery(0, "GO:0006412")
		maps.Copy(q.Params, params)
		if diff := cmp.Diff(want, answerWeights(t, c, q)); diff != "" {
			t.Errorf("%v: mismatch with the file's set (-want +got):\n%s", params, diff)
		}
	}
	for param, value := range map[string]string{"go_term_evidence": `["Curated"]`, "go_term_slim": "Yes"} {
		q := goQuery(0, "GO:0006412")
		q.Params[param] = value
		a, err := c.Answer(context.Background(), site, q, catalog.Page{})
		ne, ok := errors.AsType[*catalog.NotEvaluableError](err)
		if !ok {
			t.Errorf("%s %s: Answer = %+v, %v; want not evaluable", param, value, a, err)
			continue
		}
		if !strings.Contains(ne.Reason, param) || !strings.Contains(ne.Error(), "not evaluable offline") {
			t.Errorf("%s %s: reason %q does not name the parameter", param, value, ne.Reason)
		}
	}
	gt, err := c.Search(context.Background(), site, "", "GenesByGoTerm")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2017", "propagated Biological Process annotations", "no evidence filtering"} {
		if !strings.Contains(gt.Description, want) {
			t.Errorf("GenesByGoTerm description does not say %q: %s", want, gt.Description)
		}
	}
}

func TestAnswerPageAndProvenance(t *testing.T) {
	c := testCatalog(t)
	ctx := context.Background()
	q := goQuery(3, "GO:0006412")
	full, err := c.Answer(ctx, site, q, catalog.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(full.Records))
	for i, r := range full.Records {
		ids[i] = r.GeneID
		if r.Product == "" || r.GeneType == "" || r.Organism != organismPf3D7 || r.Chromosome == "" || r.Weight != 3 {
			t.Errorf("record %+v lacks attributes", r)
		}
	}
	if !slices.IsSorted(ids) {
		t.Error("records are not sorted by gene id")
	}
	page, err := c.Answer(ctx, site, q, catalog.Page{Offset: 280, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(full.Records[280:], page.Records); diff != "" || page.Count != 286 {
		t.Errorf("page 280+10 of 286: count %d, mismatch (-want +got):\n%s", page.Count, diff)
	}
	countOnly, err := c.Answer(ctx, site, q, catalog.Page{})
	if err != nil || countOnly.Count != 286 || len(countOnly.Records) != 0 {
		t.Errorf("count-only answer = %+v, %v", countOnly, err)
	}
	p := full.Provenance
	if !p.Offline || p.Year != 2017 || !strings.Contains(p.Source, "PlasmoDB") || p.Approximate {
		t.Errorf("provenance = %+v", p)
	}
	text := &catalog.Query{Search: "GenesByText", Params: map[string]string{"text_search_organism": testOrg, "text_expression": "kinase"}}
	ta, err := c.Answer(ctx, site, text, catalog.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if !ta.Provenance.Approximate {
		t.Error("text answer not marked approximate")
	}
	mixed, err := c.Answer(ctx, site, boolQuery(opIntersect, text, q), catalog.Page{})
	if err != nil || !mixed.Provenance.Approximate {
		t.Errorf("tree with a text step: %+v, %v; want approximate", mixed, err)
	}
}

func TestGeneByLocusTag(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		name, ids string
		want      []string
	}{
		{"JSON array", `["PF3D7_0100100","PF3D7_0100200"]`, []string{"PF3D7_0100100", "PF3D7_0100200"}},
		{"comma and space separated", "PF3D7_0100100, PF3D7_0100200", []string{"PF3D7_0100100", "PF3D7_0100200"}},
		{"newlines and semicolons", "PF3D7_0100100\nPF3D7_0100200;PF3D7_0100300", []string{"PF3D7_0100100", "PF3D7_0100200", "PF3D7_0100300"}},
		{"case-insensitive", "pf3d7_0100100", []string{"PF3D7_0100100"}},
		{"transcript id", "PF3D7_0100100.1", []string{"PF3D7_0100100"}},
		{"previous ids", "MAL1P4.01 PFA0010c", []string{"PF3D7_0100100", "PF3D7_0100200"}},
		{"unknown ids dropped", "PF3D7_0100100 NOT_A_GENE", []string{"PF3D7_0100100"}},
		{"wildcards", "PF3D7_01001* pf3d7_01002*", []string{"PF3D7_0100100", "PF3D7_0100200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := answerWeights(t, c, &catalog.Query{Search: "GeneByLocusTag", Params: map[string]string{"ds_gene_ids": tt.ids}})
			if diff := cmp.Diff(tt.want, slices.Sorted(maps.Keys(got))); diff != "" {
				t.Errorf("GeneByLocusTag(%q) mismatch (-want +got):\n%s", tt.ids, diff)
			}
		})
	}
}

// TestCacheCanonicalAndConcurrent checks that equivalent queries (defaults
// omitted or spelled out, bare or JSON-array terms) share one cache entry, and
// that concurrent answers agree (run with -race).
func TestCacheCanonicalAndConcurrent(t *testing.T) {
	c := testCatalog(t)
	ctx := context.Background()
	implicit := &catalog.Query{Search: "GenesByGeneType", Params: map[string]string{"organism": "Plasmodium falciparum 3D7", "geneType": "tRNA encoding"}}
	explicit := &catalog.Query{Search: "GenesByGeneType", Params: map[string]string{"organism": testOrg, "geneType": `["tRNA encoding"]`, "includePseudogenes": "No"}}
	if _, err := c.Answer(ctx, site, implicit, catalog.Page{}); err != nil {
		t.Fatal(err)
	}
	n := c.cache.len()
	if _, err := c.Answer(ctx, site, explicit, catalog.Page{}); err != nil {
		t.Fatal(err)
	}
	if got := c.cache.len(); got != n {
		t.Errorf("cache grew from %d to %d for an equivalent query", n, got)
	}

	tree := boolQuery(opMinus, boolQuery(opUnion, goQuery(1, "GO:0006260"), goQuery(2, "GO:0006281")), chromosomeQuery("Pf3D7_14_v3"))
	var wg sync.WaitGroup
	counts := make([]int, 8)
	errs := make([]error, 8)
	for i := range counts {
		wg.Go(func() {
			a, err := c.Answer(ctx, site, tree, catalog.Page{Limit: 3})
			errs[i] = err
			if err == nil {
				counts[i] = a.Count
			}
		})
	}
	wg.Wait()
	for i := range counts {
		if errs[i] != nil || counts[i] != 89 {
			t.Errorf("goroutine %d: count %d, err %v; want 89", i, counts[i], errs[i])
		}
	}
}

func TestAnswerCancelled(t *testing.T) {
	c := testCatalog(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Answer(ctx, site, goQuery(0, "GO:0006412"), catalog.Page{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Answer with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestAnswerStructureErrors(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		name string
		q    *catalog.Query
	}{
		{"combine with one input", &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": opUnion}, Inputs: []*catalog.Query{goQuery(0, "GO:0006412")}}},
		{"leaf with an input", &catalog.Query{Search: "GenesByTaxon", Params: map[string]string{"organism": testOrg}, Inputs: []*catalog.Query{goQuery(0, "GO:0006412")}}},
		{"nil input", &catalog.Query{Search: "GenesByWeightFilter", Inputs: []*catalog.Query{nil}}},
		{"bad parameter deep down", boolQuery(opUnion, goQuery(0, "GO:0006412"), goQuery(0, "GO:9999999"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Answer(context.Background(), site, tt.q, catalog.Page{})
			if _, ok := errors.AsType[*catalog.ValidationError](err); !ok {
				t.Errorf("Answer = %v, want *catalog.ValidationError", err)
			}
		})
	}
	_, err := c.Answer(context.Background(), site, &catalog.Query{Search: "GenesByNothing"}, catalog.Page{})
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown search: %v, want ErrNotFound", err)
	}
	_, err = c.Answer(context.Background(), "toxodb", goQuery(0, "GO:0006412"), catalog.Page{})
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown site: %v, want ErrNotFound", err)
	}
}
