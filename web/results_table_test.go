package web_test

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
	"strategist/web"
)

func TestGeneQueryApply(t *testing.T) {
	recs := []catalog.Record{
		{GeneID: "PF3D7_1400100", Product: "kinase, putative", GeneType: "protein coding", Chromosome: "Pf3D7_14_v3"},
		{GeneID: "PF3D7_0100200", GeneName: "RIF", Product: "RIF protein", GeneType: "protein coding", Chromosome: "Pf3D7_01_v3"},
		{GeneID: "PF3D7_0500300", GeneName: "CDPK1", Product: "calcium-dependent protein kinase 1", GeneType: "protein coding", Chromosome: "Pf3D7_05_v3", PreviousIDs: []string{"PFE0170c"}},
		{GeneID: "PF3D7_0700400", Product: "tRNA Ala", GeneType: "tRNA encoding", Chromosome: "Pf3D7_07_v3"},
	}
	ids := func(rs []catalog.Record) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.GeneID)
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		q             web.GeneQuery
		offset, limit int
		want          []string
		matched       int
	}{
		{"all in the catalog's order", web.GeneQuery{}, 0, 0, []string{"PF3D7_1400100", "PF3D7_0100200", "PF3D7_0500300", "PF3D7_0700400"}, 4},
		{"every word, any case, any column", web.GeneQuery{Filter: "KINASE coding"}, 0, 0, []string{"PF3D7_1400100", "PF3D7_0500300"}, 2},
		{"previous ids", web.GeneQuery{Filter: "pfe0170"}, 0, 0, []string{"PF3D7_0500300"}, 1},
		{"nothing matches", web.GeneQuery{Filter: "zzqx"}, 0, 20, []string{}, 0},
		{"by id", web.GeneQuery{Sort: "id"}, 0, 0, []string{"PF3D7_0100200", "PF3D7_0500300", "PF3D7_0700400", "PF3D7_1400100"}, 4},
		{"by symbol: empty cells last, either way", web.GeneQuery{Sort: "symbol", Desc: true}, 0, 0, []string{"PF3D7_0100200", "PF3D7_0500300", "PF3D7_1400100", "PF3D7_0700400"}, 4},
		{"by product, a page", web.GeneQuery{Sort: "product"}, 1, 2, []string{"PF3D7_1400100", "PF3D7_0100200"}, 4},
		{"filtered and sorted from the end", web.GeneQuery{Filter: "protein", Sort: "chromosome", Desc: true}, 0, 0, []string{"PF3D7_1400100", "PF3D7_0500300", "PF3D7_0100200"}, 3},
		{"past the end", web.GeneQuery{Sort: "id"}, 8, 20, []string{}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, matched := tc.q.Apply(recs, tc.offset, tc.limit)
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" || matched != tc.matched {
				t.Errorf("Apply (-want +got):\n%s matched %d, want %d", diff, matched, tc.matched)
			}
		})
	}
	if recs[0].GeneID != "PF3D7_1400100" {
		t.Error("Apply sorted the caller's records")
	}
}

func TestParseGeneTable(t *testing.T) {
	q, offset, limit, err := web.ParseGeneTable(url.Values{"q": {"  protein   kinase "}, "sort": {"product"}, "dir": {"desc"}, "offset": {"40"}, "limit": {"all"}})
	if err != nil || q != (web.GeneQuery{Filter: "protein kinase", Sort: "product", Desc: true}) || offset != 40 || limit != 0 {
		t.Errorf("ParseGeneTable = %+v, %d, %d, %v", q, offset, limit, err)
	}
	if _, _, limit, err := web.ParseGeneTable(url.Values{}); err != nil || limit != web.DefaultPageSize {
		t.Errorf("defaults: limit %d, %v", limit, err)
	}
	for _, bad := range []url.Values{{"sort": {"weight"}}, {"dir": {"up"}}, {"limit": {"0"}}, {"limit": {"1001"}}, {"offset": {"-1"}}} {
		if _, _, _, err := web.ParseGeneTable(bad); err == nil {
			t.Errorf("ParseGeneTable(%v) took it", bad)
		}
	}
}
