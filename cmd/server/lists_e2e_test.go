package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/eval"
	"strategist/internal/event/sseclient"
	"strategist/internal/strategy"
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

	// The list starts the conversation's strategy by hand, and a step's
	// genes save as a list again.
	var added struct {
		Snapshot snapshot
		Change   struct{ StepID strategy.StepID }
	}
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/strategy/list-step", map[string]string{"listId": l.ID}, &added); st != http.StatusCreated ||
		added.Snapshot.count(added.Change.StepID) != 2 {
		t.Errorf("list step = %d %+v", st, added)
	}
	var saved geneListBody
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/strategy/steps/"+string(added.Change.StepID)+"/gene-list", map[string]string{"name": "again"}, &saved); st != http.StatusCreated ||
		!slices.Equal(saved.Genes, l.Genes) || len(saved.Mapped) != 0 {
		t.Errorf("saving the step's genes = %d %+v, want the list's genes %v", st, saved, l.Genes)
	}
	for _, path := range []string{"/strategy/list-step", "/strategy/steps/" + string(added.Change.StepID) + "/gene-list"} {
		var out struct{ Error struct{ Code string } }
		if st := eve.call("POST", "/api/v1/conversations/"+conv+path, map[string]string{"listId": l.ID, "name": "x"}, &out); st != http.StatusNotFound {
			t.Errorf("POST %s as another user = %d %s, want 404", path, st, out.Error.Code)
		}
	}

	// The owner sets it as a control, then deletes it: the control goes.
	var ctl struct{ Positives, Negatives *struct{ ID string } }
	if st := a.call("PUT", "/api/v1/conversations/"+conv+"/controls", map[string]any{"positives": l.ID, "negatives": nil}, &ctl); st != http.StatusOK ||
		ctl.Positives == nil || ctl.Positives.ID != l.ID || ctl.Negatives != nil {
		t.Errorf("PUT controls = %d %+v", st, ctl)
	}
	func() {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		for r, err := range sseclient.Follow(ctx, a.URL+"/api/v1/conversations/"+conv+"/events", a.Token, 0) {
			if err != nil {
				t.Errorf("stream: %v", err)
				return
			}
			var e struct{ PositivesID, NegativesID string }
			if r.Type == "controls_changed" && json.Unmarshal(r.Payload, &e) == nil && e.PositivesID == l.ID && e.NegativesID == "" {
				return
			}
		}
		t.Error("no controls_changed event naming the new positives on the conversation's stream")
	}()
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
	func() {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		set := false
		for r, err := range sseclient.Follow(ctx, a.URL+"/api/v1/conversations/"+conv+"/events", a.Token, 0) {
			if err != nil {
				t.Errorf("stream: %v", err)
				return
			}
			var e struct{ PositivesID string }
			if r.Type != "controls_changed" || json.Unmarshal(r.Payload, &e) != nil {
				continue
			}
			if e.PositivesID == l.ID {
				set = true
			} else if set && e.PositivesID == "" {
				return
			}
		}
		t.Error("no controls_changed event after the control list was deleted")
	}()

	// The command line: add from standard input, list, score.
	cli := func(stdin string, args ...string) string {
		t.Helper()
		var out strings.Builder
		args = append(args, "--url", a.URL, "--token", a.Token)
		if err := run(t.Context(), append([]string{"lists"}, args...), strings.NewReader(stdin), &out, io.Discard, envMap(nil)); err != nil {
			t.Fatalf("strategist lists %v: %v", args, err)
		}
		return out.String()
	}
	added2 := cli("PFA0005w\nPF3D7_9999999\n", "add", "--name", "from the CLI")
	if !strings.Contains(added2, "1 genes") || !strings.Contains(added2, "mapped\tPFA0005w → PF3D7_0100100") || !strings.Contains(added2, "unknown\tPF3D7_9999999") {
		t.Errorf("strategist lists add printed:\n%s", added2)
	}
	cliID := strings.Fields(added2)[0]
	if index := cli("", "ls"); !strings.Contains(index, cliID) || !strings.Contains(index, "from the CLI") {
		t.Errorf("strategist lists printed:\n%s", index)
	}
	if table := cli("", "controls", conv, "--positives", cliID); !strings.Contains(table, "RECALL") || !strings.Contains(table, string(added.Change.StepID)+"  ") {
		t.Errorf("strategist lists controls printed:\n%s", table)
	}
	if err := run(t.Context(), []string{"lists", "show", "not-a-list", "--url", a.URL, "--token", a.Token}, nil, io.Discard, io.Discard, envMap(nil)); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("strategist lists show of an unknown list = %v, want the server's 404", err)
	}
}

// checkImportAndControls runs on the acceptance strategy (root 89: DNA
// replication or repair, minus chromosome 14). Its WDK export imported
// into a new conversation gives the same tree and counts, as one undoable
// version announced by a graph_snapshot; and with a positive list of
// DNA-replication genes (one named by its 2010 id) and a negative list of
// chromosome-14 genes, every step's recall and precision equal those
// computed here from the raw files.
func checkImportAndControls(t *testing.T, srv *offlineServer, data *eval.Data, run offlineRun) {
	t.Helper()
	var exported strategy.WDKStrategy
	srv.call(t, http.MethodGet, "/api/v1/conversations/"+run.conv+"/strategy/wdk", nil, &exported, http.StatusOK)
	var conv struct{ ID string }
	srv.call(t, http.MethodPost, "/api/v1/conversations", map[string]string{"siteId": "plasmodb"}, &conv, http.StatusCreated)
	prefix := "/api/v1/conversations/" + conv.ID
	var imported snapshot
	srv.call(t, http.MethodPost, prefix+"/strategy/wdk", exported, &imported, http.StatusOK)
	if got := imported.count(imported.RootStepID); got != 89 || got != run.strategy.count(run.strategy.RootStepID) {
		t.Errorf("imported root count %d, want the exported strategy's %d", got, run.strategy.count(run.strategy.RootStepID))
	}
	var again strategy.WDKStrategy
	srv.call(t, http.MethodGet, prefix+"/strategy/wdk", nil, &again, http.StatusOK)
	if got, want := wdkShape(&again), wdkShape(&exported); got != want {
		t.Errorf("the import exports as\n%s\nwant the strategy exported\n%s", got, want)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for r, err := range sseclient.Follow(ctx, srv.base+prefix+"/events", "", 0) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		var snap struct {
			Change struct{ Op strategy.ChangeOp }
		}
		if r.Type == "graph_snapshot" && json.Unmarshal(r.Payload, &snap) == nil && snap.Change.Op == strategy.OpImport {
			break
		}
	}
	if ctx.Err() != nil {
		t.Error("no graph_snapshot of the import on the conversation's stream")
	}
	var undone snapshot
	srv.call(t, http.MethodPost, prefix+"/strategy/undo", nil, &undone, http.StatusOK)
	if len(undone.Steps) != 0 {
		t.Errorf("undo of the import left %d steps, want the empty strategy before it", len(undone.Steps))
	}
	srv.call(t, http.MethodPost, prefix+"/strategy/redo", nil, &imported, http.StatusOK)

	// An import that cannot be made says why, and changes nothing.
	broken := exported
	broken.Steps = maps.Clone(exported.Steps)
	delete(broken.Steps, exported.StepTree.PrimaryInput.StepID)
	var refused struct {
		Error struct{ Code, Message string }
	}
	srv.call(t, http.MethodPost, prefix+"/strategy/wdk", broken, &refused, http.StatusUnprocessableEntity)
	if refused.Error.Code != "INVALID_IMPORT" || !strings.Contains(refused.Error.Message, "not among the steps") {
		t.Errorf("a broken import = %+v", refused.Error)
	}

	// Controls.
	replication := data.GO("GO:0006260")
	chr14 := data.On("Pf3D7_14_v3")
	posText := "gene_id\n" + strings.Join(slices.Sorted(maps.Keys(replication)), "\n") + "\nPFA0005w\n"
	var pos, neg geneListBody
	srv.call(t, http.MethodPost, "/api/v1/gene-lists", map[string]string{"name": "DNA replication", "text": posText}, &pos, http.StatusCreated)
	srv.call(t, http.MethodPost, "/api/v1/gene-lists", map[string]string{"name": "chromosome 14",
		"text": strings.Join(slices.Sorted(maps.Keys(chr14)), ", ")}, &neg, http.StatusCreated)
	positives := eval.Union(replication, eval.Set{"PF3D7_0100100": true})
	if pos.Size != len(positives) || len(pos.Mapped) != 1 || neg.Size != len(chr14) {
		t.Fatalf("control lists: %d positives (%v mapped), %d negatives; want %d and %d", pos.Size, pos.Mapped, neg.Size, len(positives), len(chr14))
	}
	srv.call(t, http.MethodPut, prefix+"/controls", map[string]any{"positives": pos.ID, "negatives": neg.ID}, nil, http.StatusOK)
	var report struct {
		Steps []struct {
			StepID                         strategy.StepID
			PositivesFound, NegativesFound *int
			PositivesTotal, NegativesTotal int
			Recall, Precision              *float64
			PositivesMissed                []string
		}
	}
	srv.call(t, http.MethodGet, prefix+"/strategy/controls", nil, &report, http.StatusOK)
	if len(report.Steps) != len(imported.Steps) {
		t.Fatalf("controls of %d steps, the strategy has %d", len(report.Steps), len(imported.Steps))
	}
	for _, got := range report.Steps {
		genes := rawStep(t, data, imported, got.StepID)
		pf, nf := len(eval.Intersect(genes, positives)), len(eval.Intersect(genes, chr14))
		recall := float64(pf) / float64(len(positives))
		if got.PositivesFound == nil || *got.PositivesFound != pf || got.PositivesTotal != len(positives) ||
			got.NegativesFound == nil || *got.NegativesFound != nf || got.NegativesTotal != len(chr14) ||
			got.Recall == nil || *got.Recall != recall || len(got.PositivesMissed) != len(positives)-pf {
			t.Errorf("step %s: %+v; raw files: %d of %d positives (recall %v), %d of %d negatives",
				got.StepID, got, pf, len(positives), recall, nf, len(chr14))
		}
		switch {
		case pf+nf == 0 && got.Precision != nil:
			t.Errorf("step %s: precision %s with nothing found, want null", got.StepID, fmtRatio(got.Precision))
		case pf+nf > 0 && (got.Precision == nil || *got.Precision != float64(pf)/float64(pf+nf)):
			t.Errorf("step %s: precision %s, raw files %d/(%d+%d)", got.StepID, fmtRatio(got.Precision), pf, pf, nf)
		}
		if got.StepID == imported.RootStepID && (nf != 0 || pf == 0) {
			t.Errorf("root: %d positives, %d negatives; the root excludes chromosome 14", pf, nf)
		}
	}
	// Which step drops a DNA-replication gene of chromosome 14: the root
	// (MINUS chromosome 14), and only it. The id is given in lower case.
	lost := slices.Sorted(maps.Keys(eval.Intersect(replication, chr14)))[0]
	var trace struct {
		Gene   string
		LostAt []strategy.StepID
		Steps  []struct {
			StepID strategy.StepID
			Found  *bool
		}
	}
	srv.call(t, http.MethodGet, prefix+"/strategy/genes/"+strings.ToLower(lost)+"/trace", nil, &trace, http.StatusOK)
	if trace.Gene != lost || !slices.Equal(trace.LostAt, []strategy.StepID{imported.RootStepID}) || len(trace.Steps) != len(imported.Steps) {
		t.Errorf("trace of %s = %+v; want it lost at the root %s only", lost, trace, imported.RootStepID)
	}
	for _, st := range trace.Steps {
		if want := rawStep(t, data, imported, st.StepID)[lost]; st.Found == nil || *st.Found != want {
			t.Errorf("trace of %s at %s: found %v, raw files %v", lost, st.StepID, st.Found, want)
		}
	}
	srv.call(t, http.MethodGet, prefix+"/strategy/genes/PF3D7_9999999/trace", nil, nil, http.StatusUnprocessableEntity)

	// "Test this against my controls" scores the strategy, and never builds.
	var turn struct {
		TurnID string `json:"turnId"`
	}
	srv.call(t, http.MethodPost, prefix+"/turns", map[string]string{"message": "Test this strategy against my controls", "mode": "execute"}, &turn, http.StatusAccepted)
	recs := srv.follow(t, prefix, 0, turn.TurnID)
	var tools []string
	answer := ""
	snapshots := 0
	for _, r := range recs {
		if r.TurnID != turn.TurnID {
			continue
		}
		switch r.Type {
		case "tool_call_start":
			tools = append(tools, field[string](t, r, "name"))
		case "assistant_message":
			answer = field[string](t, r, "content")
		case "graph_snapshot":
			snapshots++
		}
	}
	root := report.Steps[len(report.Steps)-1]
	want := fmt.Sprintf("| %s (root) | %d of %d | %d of %d |", imported.RootStepID, *root.PositivesFound, root.PositivesTotal, *root.NegativesFound, root.NegativesTotal)
	if !slices.Equal(tools, []string{"score_controls"}) || !strings.Contains(answer, want) || snapshots != 0 {
		t.Errorf("controls turn: tools %v, %d snapshots, answer:\n%s\nwant a line %q", tools, snapshots, answer, want)
	}
}

// rawStep evaluates a step of a snapshot from the raw files alone.
func rawStep(t *testing.T, data *eval.Data, snap snapshot, id strategy.StepID) eval.Set {
	t.Helper()
	for _, st := range snap.Steps {
		if st.ID != id {
			continue
		}
		switch {
		case st.SearchName == "GenesByGoTerm":
			var ids []string
			if err := json.Unmarshal([]byte(st.Parameters["go_typeahead"]), &ids); err != nil {
				t.Fatal(err)
			}
			out := eval.Set{}
			for _, id := range ids {
				out = eval.Union(out, data.GO(id))
			}
			return out
		case st.SearchName == "GenesByLocation":
			return data.On(st.Parameters["chromosomeOptional"])
		case st.Kind == strategy.KindCombine:
			l, r := rawStep(t, data, snap, st.Inputs[0]), rawStep(t, data, snap, st.Inputs[1])
			switch st.Operator {
			case strategy.Union:
				return eval.Union(l, r)
			case strategy.Intersect:
				return eval.Intersect(l, r)
			case strategy.Minus:
				return eval.Minus(l, r)
			}
		}
		t.Fatalf("step %s (%s %s) is not evaluated by this test", id, st.SearchName, st.Operator)
	}
	t.Fatalf("no step %s", id)
	return nil
}

// wdkShape renders a WDK strategy's tree without its step ids.
func wdkShape(w *strategy.WDKStrategy) string {
	var b strings.Builder
	var walk func(t *strategy.WDKStepTree)
	walk = func(t *strategy.WDKStepTree) {
		s := w.Steps[t.StepID]
		raw, _ := json.Marshal(s)
		b.Write(raw)
		b.WriteString("(")
		for _, in := range []*strategy.WDKStepTree{t.PrimaryInput, t.SecondaryInput} {
			if in != nil {
				walk(in)
				b.WriteString(",")
			}
		}
		b.WriteString(")")
	}
	walk(&w.StepTree)
	return b.String()
}

func fmtRatio(r *float64) string {
	if r == nil {
		return "null"
	}
	return strconv.FormatFloat(*r, 'g', -1, 64)
}
