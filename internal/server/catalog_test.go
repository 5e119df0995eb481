package server_test

import (
	"net/http"
	"strings"
	"testing"

	"strategist/internal/config"
)

func TestCatalogRoutesWithoutData(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal) // the offline catalog without gene data
	_, token := e.user("ada@example.org")
	sites := e.do("GET", "/api/v1/sites", token, "")
	if sites.status != 200 || !strings.Contains(string(sites.body), `"id":"plasmodb"`) || !strings.Contains(string(sites.body), `"offline":true`) {
		t.Fatalf("sites = %d %s", sites.status, sites.body)
	}
	ranked := e.do("GET", "/api/v1/catalog/plasmodb/searches?q=gene+ontology", token, "").json(t)["searches"].([]any)
	if len(ranked) == 0 || ranked[0].(map[string]any)["name"] != "GenesByGoTerm" {
		t.Errorf("ranking for 'gene ontology' = %v", ranked)
	}
	all := e.do("GET", "/api/v1/catalog/plasmodb/searches", token, "").json(t)["searches"].([]any)
	if len(all) < 20 {
		t.Errorf("listed %d searches", len(all))
	}
	detail := e.do("GET", "/api/v1/catalog/plasmodb/searches/GenesByGoTerm", token, "")
	if detail.status != 200 || !strings.Contains(string(detail.body), `"go_typeahead"`) {
		t.Errorf("search detail = %d", detail.status)
	}
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"unknown site", "GET", "/api/v1/catalog/marsdb/searches", "", 404, "NOT_FOUND"},
		{"unknown search", "GET", "/api/v1/catalog/plasmodb/searches/GenesByMagic", "", 404, "NOT_FOUND"},
		{"count unknown search", "POST", "/api/v1/catalog/plasmodb/searches/GenesByMagic/count", `{"parameters":{}}`, 404, "NOT_FOUND"},
		{"count with a missing value", "POST", "/api/v1/catalog/plasmodb/searches/GenesByGeneType/count", `{"parameters":{}}`, 422, "VALIDATION_ERROR"},
		{"count without gene data", "POST", "/api/v1/catalog/plasmodb/searches/GenesByGeneType/count", `{"parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]"}}`, 503, "UNAVAILABLE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.method, tt.path, token, tt.body)
			if r.status != tt.status || r.errorCode(t) != tt.code {
				t.Errorf("%d %s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
		})
	}
}

// TestCatalogCountWithData counts through the HTTP API with the real gene
// data: GO:0006412 translation is 286 genes in the 2017 snapshot.
func TestCatalogCountWithData(t *testing.T) {
	t.Parallel()
	cat := geneCatalog(t)
	e := newEnvWith(t, config.AuthLocal, cat)
	_, token := e.user("ada@example.org")
	r := e.do("POST", "/api/v1/catalog/plasmodb/searches/GenesByGoTerm/count", token,
		`{"parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]","go_typeahead":"[\"GO:0006412\"]"}}`)
	m := r.json(t)
	if r.status != http.StatusOK || m["count"] != float64(286) || m["provenance"].(map[string]any)["offline"] != true {
		t.Errorf("count = %d %s", r.status, r.body)
	}
	// Vocabularies come from the data: with it, a term outside the gene
	// types is refused, keyed by parameter, next to a missing value.
	bad := e.do("POST", "/api/v1/catalog/plasmodb/searches/GenesByGeneType/count", token, `{"parameters":{"geneType":"[\"spaceship\"]"}}`)
	if bad.status != http.StatusUnprocessableEntity || bad.errorCode(t) != "VALIDATION_ERROR" {
		t.Fatalf("bad term = %d %s", bad.status, bad.body)
	}
	byKey := bad.json(t)["error"].(map[string]any)["details"].(map[string]any)["byKey"].(map[string]any)
	if _, ok := byKey["organism"]; !ok {
		t.Errorf("byKey = %v, want the missing organism", byKey)
	}
	if _, ok := byKey["geneType"]; !ok {
		t.Errorf("byKey = %v, want the bad gene type", byKey)
	}
	ne := e.do("POST", "/api/v1/catalog/plasmodb/searches/GenesByMolecularWeight/count", token, `{"parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]"}}`)
	if ne.status != http.StatusOK || ne.json(t)["count"] != nil || ne.json(t)["evaluable"] != false {
		t.Errorf("not-evaluable count = %d %s", ne.status, ne.body)
	}
}
