package offline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func TestValidate(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		name   string
		search string
		params map[string]string
		want   map[string]string   // filled values to check (subset)
		errs   map[string][]string // byKey substrings expected; nil means valid
	}{
		{
			name: "defaults fill omitted parameters", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["GO:0006412"]`},
			want:   map[string]string{"go_term_evidence": `["Curated","Computed"]`, "go_term_slim": "No", "go_term": "N/A"},
		},
		{
			name: "omitted without default", search: "GenesByGoTerm",
			params: map[string]string{"go_typeahead": `["GO:0006412"]`},
			errs:   map[string][]string{"organism": {"Cannot be empty."}},
		},
		{
			name: "empty value without default", search: "GenesByTaxon",
			params: map[string]string{"organism": `[]`},
			errs:   map[string][]string{"organism": {"Cannot be empty."}},
		},
		{
			name: "unknown parameter keyed by its name", search: "GenesByTaxon",
			params: map[string]string{"organism": testOrg, "organisms": testOrg},
			errs:   map[string][]string{"organisms": {"not a parameter of GenesByTaxon"}},
		},
		{
			name: "term outside the vocabulary", search: "GenesByGeneType",
			params: map[string]string{"organism": testOrg, "geneType": `["protein coding","miRNA encoding"]`},
			errs:   map[string][]string{"geneType": {"Invalid value 'miRNA encoding'."}},
		},
		{
			name: "organism not in the snapshot", search: "GenesByTaxon",
			params: map[string]string{"organism": `["Plasmodium vivax P01"]`},
			errs:   map[string][]string{"organism": {"Invalid value 'Plasmodium vivax P01'."}},
		},
		{
			name: "a transform to orthologs names any of the site's organisms", search: "GenesByOrthologs",
			params: map[string]string{"organism": `["Plasmodium vivax P01"]`, "gene_result": ""},
			want:   map[string]string{"isSyntenic": "no"},
		},
		{
			name: "but not one the site lacks", search: "GenesByOrthologs",
			params: map[string]string{"organism": `["Toxoplasma gondii ME49"]`, "gene_result": ""},
			errs:   map[string][]string{"organism": {"Invalid value 'Toxoplasma gondii ME49'."}},
		},
		{
			name: "display label instead of term", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["translation (GO:0006412)"]`},
			errs:   map[string][]string{"go_typeahead": {"Use the term 'GO:0006412'"}},
		},
		{
			name: "molecular-function GO id", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["GO:0004672"]`},
			errs:   map[string][]string{"go_typeahead": {"molecular-function", "biological-process gene sets only"}},
		},
		{
			name: "unknown GO id", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["GO:9999999"]`},
			errs:   map[string][]string{"go_typeahead": {"Invalid value 'GO:9999999'."}},
		},
		{
			name: "GO ids in any case", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["go:0006281"," Go:0006260","GO:0006281"]`},
			want:   map[string]string{"go_typeahead": `["GO:0006281","GO:0006260"]`},
		},
		{
			name: "a current GO id the 2017 file lists under a merged id", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["go:0098609"]`},
			want:   map[string]string{"go_typeahead": `["GO:0098609"]`},
		},
		{
			name: "a root merged from a 2017 id is still not a gene set", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["GO:0008150"]`},
			errs:   map[string][]string{"go_typeahead": {"no biological-process gene set"}},
		},
		{
			name: "a merged term's label", search: "GenesByGoTerm",
			params: map[string]string{"organism": testOrg, "go_typeahead": `["cell-cell adhesion (GO:0098609) – listed in the 2017 data as GO:0016337"]`},
			errs:   map[string][]string{"go_typeahead": {"Use the term 'GO:0098609'"}},
		},
		{
			name: "two values on a single-pick", search: "GenesByLocation",
			params: map[string]string{"chromosomeOptional": `["Pf3D7_01_v3","Pf3D7_02_v3"]`},
			errs:   map[string][]string{"chromosomeOptional": {"takes one value; got 2"}},
		},
		{
			name: "single-pick as a one-element array", search: "GenesByLocation",
			params: map[string]string{"chromosomeOptional": `["Pf3D7_02_v3"]`},
			want:   map[string]string{"chromosomeOptional": "Pf3D7_02_v3", "organismSinglePick": testOrg, "start_point": "1", "end_point": "0"},
		},
		{
			name: "single-pick is never split on commas", search: "boolean_question_TranscriptRecordClasses_TranscriptRecordClass",
			params: map[string]string{"bq_operator": "UNION,MINUS"},
			errs:   map[string][]string{"bq_operator": {"Invalid value 'UNION,MINUS'."}},
		},
		{
			name: "multi-pick as a bare single term", search: "GenesByGeneType",
			params: map[string]string{"organism": "Plasmodium falciparum 3D7", "geneType": "tRNA encoding"},
			want:   map[string]string{"organism": testOrg, "geneType": `["tRNA encoding"]`, "includePseudogenes": "No"},
		},
		{
			name: "multi-pick comma string is not split", search: "GenesByGeneType",
			params: map[string]string{"organism": testOrg, "geneType": "tRNA encoding,rRNA encoding"},
			errs:   map[string][]string{"geneType": {"JSON array string", "not split on commas"}},
		},
		{
			name: "multi-pick malformed JSON", search: "GenesByGeneType",
			params: map[string]string{"organism": testOrg, "geneType": `["tRNA encoding"`},
			errs:   map[string][]string{"geneType": {"not a JSON array"}},
		},
		{
			name: "tree selection counts leaves against the maximum", search: "GenesByLocation",
			params: map[string]string{"organismSinglePick": `["Plasmodium","Plasmodium falciparum 3D7"]`},
			want:   map[string]string{"organismSinglePick": `["Plasmodium","Plasmodium falciparum 3D7"]`},
		},
		{
			name: "number string", search: "GenesByMolecularWeight",
			params: map[string]string{"organism": testOrg, "min_molecular_weight": "10,000", "max_molecular_weight": "abc"},
			errs: map[string][]string{
				"min_molecular_weight": {"without thousands separators"},
				"max_molecular_weight": {"'abc' is not a number."},
			},
		},
		{
			name: "number strings accepted", search: "GenesByWeightFilter",
			params: map[string]string{"min_weight": " 12 ", "max_weight": "1e2"},
			want:   map[string]string{"min_weight": "12", "max_weight": "1e2", "gene_result": ""},
		},
		{
			name: "number range with both ends", search: "GenesByParalogCount",
			params: map[string]string{"organism": testOrg, "num_paralogs": `{"min":2,"max":"10"}`},
			want:   map[string]string{"num_paralogs": `{"min":"2","max":"10"}`},
		},
		{
			name: "number range one-sided", search: "GenesByParalogCount",
			params: map[string]string{"organism": testOrg, "num_paralogs": `{"min":"2"}`},
			errs:   map[string][]string{"num_paralogs": {"both ends"}},
		},
		{
			name: "number range reversed", search: "GenesByIntronJunctions",
			params: map[string]string{"organism": testOrg, "percent_max": `{"min":"50","max":"20"}`},
			errs:   map[string][]string{"percent_max": {"min is greater than max"}},
		},
		{
			name: "number range out of bounds", search: "GenesByIntronJunctions",
			params: map[string]string{"organism": testOrg, "percent_max": `{"min":"0","max":"20"}`},
			errs:   map[string][]string{"percent_max": {"outside the allowed range [1, 100]"}},
		},
		{
			name: "number range default", search: "GenesByIntronJunctions",
			params: map[string]string{"organism": testOrg},
			want:   map[string]string{"percent_max": `{"min":"20","max":"100"}`, "min_total_unique": "20"},
		},
		{
			name: "input-step parameter must be empty", search: "GenesByWeightFilter",
			params: map[string]string{"gene_result": "123"},
			errs:   map[string][]string{"gene_result": {"must have the null value"}},
		},
		{
			name: "boolean defaults to INTERSECT", search: "boolean_question_TranscriptRecordClasses_TranscriptRecordClass",
			params: map[string]string{},
			want:   map[string]string{"bq_operator": "INTERSECT", leftParam: "", rightParam: ""},
		},
		{
			name: "all six boolean terms exist; aliases do not", search: "boolean_question_TranscriptRecordClasses_TranscriptRecordClass",
			params: map[string]string{"bq_operator": "LMINUS"},
			errs:   map[string][]string{"bq_operator": {"Allowed: UNION, INTERSECT, MINUS, RMINUS, LONLY, RONLY."}},
		},
		{
			name: "hidden defaults are filled", search: "GenesByText",
			params: map[string]string{"text_search_organism": testOrg, "text_expression": "kinase"},
			want:   map[string]string{"document_type": "gene", "text_fields": `["primary_key","Alias","product"]`, "timestamp": ""},
		},
		{
			name: "open vocabulary values are not checked", search: "GenesByEcNumber",
			params: map[string]string{"organism": testOrg, "ec_source": `["KEGG"]`, "ec_number_pattern": "2.7.11.1"},
			want:   map[string]string{"ec_number_pattern": "2.7.11.1", "ec_wildcard": "N/A"},
		},
		{
			// The site's own default (selectMode all over a vocabulary only
			// it has): left out, for the live site to fill.
			name: "an open check box without a known vocabulary is left to the site", search: "GenesByEcNumber",
			params: map[string]string{"organism": testOrg, "ec_number_pattern": "2.7.11.1"},
			want:   map[string]string{"organism": testOrg, "ec_number_pattern": "2.7.11.1", "ec_wildcard": "N/A"},
		},
		{
			name: "an open type-ahead without a value has no default", search: "GenesByEcNumber",
			params: map[string]string{"organism": testOrg, "ec_source": `["GeneDB"]`},
			errs:   map[string][]string{"ec_number_pattern": {"Cannot be empty."}},
		},
		{
			name: "several problems reported together", search: "GenesByGoTerm",
			params: map[string]string{"go_typeahead": `["GO:9999999"]`, "bogus": "1"},
			errs: map[string][]string{
				"organism": {"Cannot be empty."}, "go_typeahead": {"GO:9999999"}, "bogus": {"not a parameter"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Validate(context.Background(), site, tt.search, tt.params)
			if tt.errs == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				d := c.byName[tt.search]
				want := 0 // every parameter but those left to the live site
				for _, p := range d.search.Params {
					if _, given := tt.params[p.Name]; given || !p.SiteDefault {
						want++
					}
				}
				if len(got) != want {
					t.Errorf("Validate returned %d values, want %d parameters", len(got), want)
				}
				sub := map[string]string{}
				for k := range tt.want {
					sub[k] = got[k]
				}
				if diff := cmp.Diff(tt.want, sub); diff != "" {
					t.Errorf("Validate mismatch (-want +got):\n%s", diff)
				}
				return
			}
			ve, ok := errors.AsType[*catalog.ValidationError](err)
			if !ok {
				t.Fatalf("Validate = %v, %v; want *catalog.ValidationError", got, err)
			}
			keys := map[string]bool{}
			for k := range ve.ByKey {
				keys[k] = true
			}
			wantKeys := map[string]bool{}
			for k := range tt.errs {
				wantKeys[k] = true
			}
			if diff := cmp.Diff(wantKeys, keys); diff != "" {
				t.Errorf("byKey keys mismatch (-want +got):\n%s\nerror: %v", diff, ve)
			}
			for k, subs := range tt.errs {
				msgs := strings.Join(ve.ByKey[k], " | ")
				for _, s := range subs {
					if !strings.Contains(msgs, s) {
						t.Errorf("byKey[%s] = %q, want it to mention %q", k, msgs, s)
					}
				}
			}
		})
	}
}

func TestValidateNotFound(t *testing.T) {
	c := testCatalog(t)
	if _, err := c.Validate(context.Background(), site, "GenesByNothing", nil); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown search: %v", err)
	}
	if _, err := c.Validate(context.Background(), "toxodb", "GenesByTaxon", nil); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown site: %v", err)
	}
}
