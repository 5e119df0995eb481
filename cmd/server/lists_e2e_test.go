package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"strategist/internal/catalog"
)

// geneListBody is a gene list as the API answers it.
type geneListBody struct {
	ID      string
	Name    string
	SiteID  string
	Size    int
	Genes   []string
	Unknown []string
	Mapped  []catalog.IDMapping
}

// TestGeneListsAPI: a list uploaded with a previous id reports it mapped to
// the current id and its unknown ids listed; lists are listed, renamed,
// downloaded and deleted; another user's list is a 404.
func TestGeneListsAPI(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "plan_build.json"})

	var l geneListBody
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "from a 2010 paper",
		"text": "Gene ID\r\nPFA0005w\r\npf3d7_1133400\r\nPF3D7_9999999\r\nPF3D7_0100100\r\n"}, &l); st != http.StatusCreated {
		t.Fatalf("POST /gene-lists = %d", st)
	}
	if l.Size != 2 || !slices.Equal(l.Genes, []string{"PF3D7_0100100", "PF3D7_1133400"}) || !slices.Equal(l.Unknown, []string{"PF3D7_9999999"}) ||
		!slices.Equal(l.Mapped, []catalog.IDMapping{{From: "PFA0005w", To: "PF3D7_0100100"}}) || l.SiteID != "plasmodb" {
		t.Errorf("created list = %+v; want PFA0005w mapped to PF3D7_0100100, PF3D7_9999999 unknown, 2 genes", l)
	}

	// A TSV file's text, as the page and the CLI send it.
	var tsv geneListBody
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "screen.tsv", "text": "Product\tGene ID\nAMA1\tPF3D7_1133400\n"}, &tsv); st != http.StatusCreated ||
		!slices.Equal(tsv.Genes, []string{"PF3D7_1133400"}) {
		t.Errorf("TSV upload = %d %+v", st, tsv)
	}

	// Refusals say what is wrong.
	var refused struct {
		Error struct{ Code, Message string }
	}
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "empty", "text": "Gene ID\n"}, &refused); st != http.StatusUnprocessableEntity ||
		refused.Error.Code != "VALIDATION_ERROR" || !strings.Contains(refused.Error.Message, "no gene ids") {
		t.Errorf("an empty list = %d %+v", st, refused)
	}
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "", "text": "PF3D7_0100100"}, &refused); st != http.StatusUnprocessableEntity {
		t.Errorf("a list without a name = %d %+v", st, refused)
	}

	var index struct {
		GeneLists []struct {
			ID   string
			Name string
			Size int
		}
	}
	if st := a.call("GET", "/api/v1/gene-lists", nil, &index); st != http.StatusOK || len(index.GeneLists) != 2 || index.GeneLists[1].ID != l.ID || index.GeneLists[1].Size != 2 {
		t.Errorf("GET /gene-lists = %d %+v", st, index)
	}
	var renamed geneListBody
	if st := a.call("PATCH", "/api/v1/gene-lists/"+l.ID, map[string]string{"name": "hits"}, &renamed); st != http.StatusOK || renamed.Name != "hits" {
		t.Errorf("rename = %d %+v", st, renamed)
	}
	req, _ := http.NewRequest("GET", a.URL+"/api/v1/gene-lists/"+l.ID+"/download", nil)
	req.Header.Set("Authorization", "Bearer "+a.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(raw) != "PF3D7_0100100\nPF3D7_1133400\n" || !strings.Contains(resp.Header.Get("Content-Disposition"), `filename="hits.txt"`) {
		t.Errorf("download = %d %q %s", resp.StatusCode, raw, resp.Header.Get("Content-Disposition"))
	}

	// Another user sees nothing of it.
	eve := &testApp{t: t, URL: a.URL}
	u, err := a.app.accounts.CreateUser(context.Background(), "eve@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if eve.Token, _, err = a.app.accounts.CreateAPIToken(context.Background(), u.ID, "eve"); err != nil {
		t.Fatal(err)
	}
	conv := a.newConversation()
	for _, rt := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/gene-lists/" + l.ID, nil},
		{"PATCH", "/api/v1/gene-lists/" + l.ID, map[string]string{"name": "mine"}},
		{"GET", "/api/v1/gene-lists/" + l.ID + "/download", nil},
		{"DELETE", "/api/v1/gene-lists/" + l.ID, nil},
		{"GET", "/api/v1/conversations/" + conv + "/controls", nil},
		{"PUT", "/api/v1/conversations/" + conv + "/controls", map[string]any{"positives": nil, "negatives": nil}},
		{"GET", "/api/v1/conversations/" + conv + "/strategy/controls", nil},
		{"POST", "/api/v1/conversations/" + conv + "/strategy/wdk", map[string]any{"recordClassName": "transcript"}},
	} {
		var out struct{ Error struct{ Code string } }
		if st := eve.call(rt.method, rt.path, rt.body, &out); st != http.StatusNotFound || out.Error.Code != "NOT_FOUND" {
			t.Errorf("%s %s as another user = %d %s, want 404 NOT_FOUND", rt.method, rt.path, st, out.Error.Code)
		}
	}
	var eves struct{ GeneLists []any }
	if st := eve.call("GET", "/api/v1/gene-lists", nil, &eves); st != http.StatusOK || len(eves.GeneLists) != 0 {
		t.Errorf("another user's index = %d %+v", st, eves)
	}
	// Nor can she use it as her conversation's control.
	eveConv := eve.newConversation()
	if st := eve.call("PUT", "/api/v1/conversations/"+eveConv+"/controls", map[string]any{"positives": l.ID}, &refused); st != http.StatusUnprocessableEntity {
		t.Errorf("another user's list as a control = %d %+v, want 422", st, refused)
	}

	// The owner sets it as a control, then deletes it: the control goes.
	var ctl struct{ Positives, Negatives *struct{ ID string } }
	if st := a.call("PUT", "/api/v1/conversations/"+conv+"/controls", map[string]any{"positives": l.ID, "negatives": nil}, &ctl); st != http.StatusOK ||
		ctl.Positives == nil || ctl.Positives.ID != l.ID || ctl.Negatives != nil {
		t.Errorf("PUT controls = %d %+v", st, ctl)
	}
	if st := a.call("DELETE", "/api/v1/gene-lists/"+l.ID, nil, nil); st != http.StatusNoContent {
		t.Errorf("delete = %d", st)
	}
	if st := a.call("GET", "/api/v1/gene-lists/"+l.ID, nil, nil); st != http.StatusNotFound {
		t.Errorf("GET a deleted list = %d", st)
	}
	ctl.Positives = nil
	if st := a.call("GET", "/api/v1/conversations/"+conv+"/controls", nil, &ctl); st != http.StatusOK || ctl.Positives != nil {
		t.Errorf("controls after the list was deleted = %d %+v", st, ctl)
	}
}
