package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"strategist/internal/config"
	"strategist/internal/server"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
)

// TestResearcherEdits: a researcher combines the two results of a strategy
// and deletes a step through the API, with the agents' checks and history:
// another user's strategy is not found, a step in use is refused with its
// code, Undo takes an edit back.
func TestResearcherEdits(t *testing.T) {
	t.Parallel()
	e, svc := strategyEnv(t, config.AuthLocal)
	u, ada := e.user("ada@example.org")
	_, eve := e.user("eve@example.org")
	r := e.do(http.MethodPost, "/api/v1/conversations", ada, `{"siteId":"plasmodb"}`)
	conv, _ := r.json(t)["id"].(string)
	ctx := context.Background()
	snap, err := svc.ForConversation(ctx, u.ID, conv, "transcript", "Two results")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"GO:0006260", "GO:0006281"} {
		addGOStep(t, svc, u.ID, snap.StrategyID, id)
	}
	base := "/api/v1/conversations/" + conv + "/strategy"
	roots := func(r response) []strategy.StepID {
		t.Helper()
		var s strategy.Snapshot
		if err := json.Unmarshal(r.body, &s); err != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
		return s.Roots
	}

	if r := e.do(http.MethodPost, base+"/combine", eve, `{"left":"s1","right":"s2","operator":"UNION"}`); r.status != http.StatusNotFound {
		t.Errorf("another user's combine = %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodPost, base+"/combine", ada, `{"left":"s1","right":"s2"}`); r.status != http.StatusBadRequest {
		t.Errorf("combine without an operator = %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodPost, base+"/combine", ada, `{"left":"s1","right":"s2","operator":"XOR"}`); r.status != http.StatusUnprocessableEntity {
		t.Errorf("combine with XOR = %d %s", r.status, r.body)
	}
	r = e.do(http.MethodPost, base+"/combine", ada, `{"left":"s1","right":"s2","operator":"UNION"}`)
	if got := roots(r); r.status != http.StatusOK || !slices.Equal(got, []strategy.StepID{"s3"}) {
		t.Fatalf("combine = %d, roots %v", r.status, got)
	}
	if r := e.do(http.MethodDelete, base+"/steps/s1", ada, ""); r.status != http.StatusUnprocessableEntity || r.errorCode(t) != "STEP_IN_USE" {
		t.Errorf("deleting an input = %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodDelete, base+"/steps/s3", eve, ""); r.status != http.StatusNotFound {
		t.Errorf("another user's delete = %d %s", r.status, r.body)
	}
	r = e.do(http.MethodDelete, base+"/steps/s3", ada, "")
	if got := roots(r); r.status != http.StatusOK || !slices.Equal(got, []strategy.StepID{"s1", "s2"}) {
		t.Fatalf("delete the combine = %d, roots %v", r.status, got)
	}
	r = e.do(http.MethodPost, base+"/undo", ada, "")
	if got := roots(r); r.status != http.StatusOK || !slices.Equal(got, []strategy.StepID{"s3"}) {
		t.Errorf("undo the delete = %d, roots %v", r.status, got)
	}

	// A step's name, parameters (validated by the catalog) and a combine's
	// operator change in place.
	step := func(r response, id strategy.StepID) strategy.Step {
		t.Helper()
		var s strategy.Snapshot
		if err := json.Unmarshal(r.body, &s); err != nil || r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		for _, st := range s.Steps {
			if st.ID == id {
				return st
			}
		}
		t.Fatalf("no step %s in %s", id, r.body)
		return strategy.Step{}
	}
	if got := step(e.do(http.MethodPatch, base+"/steps/s1", ada, `{"displayName":"Replication"}`), "s1"); got.DisplayName != "Replication" {
		t.Errorf("renamed step is %q", got.DisplayName)
	}
	if got := step(e.do(http.MethodPatch, base+"/steps/s3", ada, `{"operator":"INTERSECT"}`), "s3"); got.Operator != strategy.Intersect {
		t.Errorf("combine's operator is %q after the change", got.Operator)
	}
	if got := step(e.do(http.MethodPatch, base+"/steps/s2", ada, `{"parameters":{"go_typeahead":"[\"GO:0006412\"]"}}`), "s2"); got.Parameters["go_typeahead"] != `["GO:0006412"]` {
		t.Errorf("parameters after the change: %v", got.Parameters)
	}
	if r := e.do(http.MethodPatch, base+"/steps/s2", ada, `{"parameters":{"go_typeahead":"[\"GO:9999999\"]"}}`); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a GO id the catalog does not know = %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodPatch, base+"/steps/s1", eve, `{"displayName":"mine"}`); r.status != http.StatusNotFound {
		t.Errorf("another user's rename = %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodPatch, base+"/steps/s9", ada, `{"displayName":"x"}`); r.status != http.StatusNotFound {
		t.Errorf("an unknown step = %d %s", r.status, r.body)
	}
}

// TestStepParamsForm: the results panel's parameter editor changes a
// step's parameters through the strategy service: the fields show the
// step's values, a change is counted again and drawn with the new version
// (Undo names the step), a value the catalog refuses is its message, and
// an unchanged form or another user's step changes nothing.
func TestStepParamsForm(t *testing.T) {
	t.Parallel()
	local, svc := strategyEnv(t, config.AuthLocal)
	e := &pageEnv{env: local}
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := e.conversation(ada, "Parameters")
	ctx := context.Background()
	snap, err := svc.ForConversation(ctx, ada.userID, conv.ID, "transcript", "One search")
	if err != nil {
		t.Fatal(err)
	}
	res := addGOStep(t, svc, ada.userID, snap.StrategyID, "GO:0006260")
	before := *res.Snapshot.Steps[0].Count
	base := "/conversations/" + conv.ID + "/strategy/steps/s1/"

	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+base+"results", nil)
	req.AddCookie(ada.cookie)
	req.Header.Set("HX-Request", "true")
	d := doc(t, e.send(req))
	form := testid(d, "step-params")
	if form.AttrOr("hx-post", "") != base+"parameters" || form.AttrOr("hx-target", "") != "#results" {
		t.Fatalf("editor posts to %q into %q", form.AttrOr("hx-post", ""), form.AttrOr("hx-target", ""))
	}
	if got := form.Find(`textarea[name="p.go_typeahead"]`).Text(); got != "GO:0006260" {
		t.Errorf("GO field shows %q", got)
	}
	if form.Find(`select[name="p.go_term_evidence"] option[selected]`).Length() != 2 {
		t.Errorf("evidence select: %s", form.Find(`select[name="p.go_term_evidence"]`).Text())
	}
	if got := testid(d, "results-table").AttrOr("data-version", ""); got != strconv.Itoa(res.Snapshot.Version) {
		t.Errorf("results drawn at version %q, want %d", got, res.Snapshot.Version)
	}

	// The GO field names its term and has a typeahead over the GO
	// vocabulary: by name (with the step's count with each term alone),
	// by a GO synonym (said), and by the nearest spelling of a typo.
	if got := form.Find(`[data-testid="term-chosen"] li`).Text(); got != "DNA replication (GO:0006260)" {
		t.Errorf("the GO field names its term %q", got)
	}
	if box := form.Find(`[data-testid="term-search"]`); box.AttrOr("hx-get", "") != base+"terms" || box.AttrOr("hx-vals", "") != `{"param":"go_typeahead"}` {
		t.Errorf("typeahead asks %q with %q", box.AttrOr("hx-get", ""), box.AttrOr("hx-vals", ""))
	}
	terms := func(b browser, q string) (response, *goquery.Document) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+base+"terms?"+url.Values{"param": {"go_typeahead"}, "terms_q": {q}}.Encode(), nil)
		req.AddCookie(b.cookie)
		req.Header.Set("HX-Request", "true")
		r := e.send(req)
		if r.status != http.StatusOK {
			return r, nil
		}
		return r, doc(t, r)
	}
	_, td := terms(ada, "DNA repair")
	first := td.Find(`[data-testid="term-pick"]`).First()
	repairCount := first.Parent().Find(`[data-testid="term-count"]`).Text()
	if first.AttrOr("data-term", "") != "GO:0006281" || first.Text() != "DNA repair (GO:0006281)" || !strings.HasSuffix(repairCount, " genes") {
		t.Errorf("typeahead for DNA repair offers %q %q first, count %q", first.AttrOr("data-term", ""), first.Text(), repairCount)
	}
	if _, td := terms(ada, "pyrimidine base metabolism"); td.Find(`[data-testid="term-synonym"]`).First().Text() != "synonym “pyrimidine base metabolism”" {
		t.Errorf("a GO synonym finds no term by it: %s", td.Text())
	}
	if _, td := terms(ada, "DNA repiar"); testid(td, "term-near").Length() != 1 || td.Find(`[data-testid="term-pick"][data-term="GO:0006281"]`).Length() != 1 {
		t.Errorf("a typo is not offered its nearest spelling: %s", td.Text())
	}
	if _, td := terms(ada, "zzqx vbnm"); testid(td, "term-none").Length() != 1 {
		t.Errorf("nonsense: %s", td.Text())
	}
	if r, _ := terms(ada, strings.Repeat("x", 101)); r.status != http.StatusBadRequest {
		t.Errorf("a long query = %d", r.status)
	}
	if r, _ := terms(eve, "DNA repair"); r.status != http.StatusNotFound {
		t.Errorf("another user's typeahead = %d", r.status)
	}

	post := func(b browser, goTerms string) response {
		v := url.Values{"csrf_token": {b.csrf}, "p.go_typeahead": {goTerms}, "p.go_term_evidence": {"", "Curated", "Computed"}, "p.go_term_slim": {"No"}}
		return e.post(b, base+"parameters", v, true)
	}
	r := post(ada, "GO:0006281")
	if r.status != http.StatusOK || testid(doc(t, r), "results-table").AttrOr("data-version", "") != strconv.Itoa(res.Snapshot.Version+1) {
		t.Fatalf("valid change = %d %s", r.status, r.body)
	}
	now, err := svc.Conversation(ctx, ada.userID, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := now.Step("s1")
	if st.Parameters["go_typeahead"] != `["GO:0006281"]` || st.Count == nil || *st.Count == before {
		t.Errorf("after the change: %v, count %v (was %d)", st.Parameters, st.Count, before)
	}
	if st.Count != nil && repairCount != strconv.Itoa(*st.Count)+" genes" {
		t.Errorf("the typeahead offered DNA repair with %q; the step has %d with it", repairCount, *st.Count)
	}
	versions, err := svc.Versions(ctx, ada.userID, now.StrategyID)
	if err != nil {
		t.Fatal(err)
	}
	if last := versions[len(versions)-1]; last.Change.Summary != "updated step s1 (parameters: go_typeahead)" {
		t.Errorf("the change is named %q", last.Change.Summary)
	}

	r = post(ada, "GO:9999999")
	if msg := testid(doc(t, r), "error-message").Text(); r.status != http.StatusUnprocessableEntity || !strings.HasPrefix(msg, "GO Term or GO ID: Invalid value 'GO:9999999'.") {
		t.Errorf("refused value = %d, message %q", r.status, msg)
	}
	if r := post(ada, "GO:0006281"); r.status != http.StatusBadRequest {
		t.Errorf("unchanged form = %d %s", r.status, r.body)
	}
	if r := post(eve, "GO:0006260"); r.status != http.StatusNotFound {
		t.Errorf("another user's step = %d", r.status)
	}
}

// TestDevModeHandEditing: in dev mode (no session, so no form token) the
// owner's results panel still draws the rename form and the parameter
// editor, and their same-origin posts change the step; a cross-site post
// is refused.
func TestDevModeHandEditing(t *testing.T) {
	t.Parallel()
	e, svc := strategyEnv(t, config.AuthDev)
	ctx := context.Background()
	dev, err := e.accounts.DevUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := e.db.CreateConversation(ctx, dev.ID, "plasmodb", "Dev", "offline")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := svc.ForConversation(ctx, dev.ID, conv.ID, "transcript", "One search")
	if err != nil {
		t.Fatal(err)
	}
	addGOStep(t, svc, dev.ID, snap.StrategyID, "GO:0006260")
	base := "/conversations/" + conv.ID + "/strategy/steps/s1/"
	r := e.page(base+"results", nil)
	d := doc(t, r)
	if r.status != http.StatusOK || testid(d, "rename-step").Length() != 1 || testid(d, "step-params").Length() != 1 {
		t.Fatalf("dev-mode results = %d: rename form %d, parameter editor %d, want both", r.status,
			testid(d, "rename-step").Length(), testid(d, "step-params").Length())
	}
	post := func(path string, v url.Values, site string) response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(v.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", site)
		req.Header.Set("HX-Request", "true")
		return e.send(req)
	}
	if r := post(base+"rename", url.Values{"name": {"Replication by hand"}}, "cross-site"); r.status != http.StatusForbidden {
		t.Errorf("cross-site rename = %d, want 403", r.status)
	}
	if r := post(base+"rename", url.Values{"csrf_token": {""}, "name": {"Replication by hand"}}, "same-origin"); r.status >= 300 {
		t.Fatalf("dev-mode rename = %d %s", r.status, r.body)
	}
	r = post(base+"parameters", url.Values{"csrf_token": {""}, "p.go_typeahead": {"GO:0006281"},
		"p.go_term_evidence": {"", "Curated", "Computed"}, "p.go_term_slim": {"No"}}, "same-origin")
	if r.status != http.StatusOK {
		t.Fatalf("dev-mode parameter change = %d %s", r.status, r.body)
	}
	now, err := svc.Conversation(ctx, dev.ID, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := now.Step("s1"); st.DisplayName != "Replication by hand" || st.Parameters["go_typeahead"] != `["GO:0006281"]` {
		t.Errorf("after the dev-mode edits the step is %q with %v", st.DisplayName, st.Parameters)
	}
}

// TestStepOperatorForm: the results panel of a combine step changes its
// operator through the strategy service: the select shows the current one,
// a change is counted again and names the step anew, Undo takes it back,
// and an unknown operator, a colocation, a search step or another user's
// step changes nothing.
func TestStepOperatorForm(t *testing.T) {
	t.Parallel()
	local, svc := strategyEnv(t, config.AuthLocal)
	e := &pageEnv{env: local}
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := e.conversation(ada, "Operator")
	ctx := context.Background()
	snap, err := svc.ForConversation(ctx, ada.userID, conv.ID, "transcript", "Two searches")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"GO:0006260", "GO:0006281"} {
		addGOStep(t, svc, ada.userID, snap.StrategyID, id)
	}
	res, err := svc.Apply(ctx, ada.userID, snap.StrategyID, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Intersect})
	if err != nil {
		t.Fatal(err)
	}
	both := *res.Snapshot.Steps[2].Count
	path := "/conversations/" + conv.ID + "/strategy/steps/s3/"

	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path+"results", nil)
	req.AddCookie(ada.cookie)
	req.Header.Set("HX-Request", "true")
	d := doc(t, e.send(req))
	form := testid(d, "step-operator")
	if form.AttrOr("hx-post", "") != path+"operator" || form.Find("option[selected]").AttrOr("value", "") != "INTERSECT" {
		t.Fatalf("operator form posts to %q with %q selected", form.AttrOr("hx-post", ""), form.Find("option[selected]").AttrOr("value", ""))
	}
	post := func(b browser, id, op string) response {
		return e.post(b, "/conversations/"+conv.ID+"/strategy/steps/"+id+"/operator", url.Values{"csrf_token": {b.csrf}, "operator": {op}}, true)
	}
	r := post(ada, "s3", "UNION")
	if r.status != http.StatusOK || testid(doc(t, r), "step-operator").Find("option[selected]").AttrOr("value", "") != "UNION" {
		t.Fatalf("UNION = %d %s", r.status, r.body)
	}
	now, err := svc.Conversation(ctx, ada.userID, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := now.Step("s3")
	if st.Operator != strategy.Union || st.Count == nil || *st.Count <= both || !strings.Contains(st.DisplayName, " or ") {
		t.Errorf("after UNION: %s, count %v (INTERSECT had %d), named %q", st.Operator, st.Count, both, st.DisplayName)
	}
	for _, bad := range []struct{ step, op string }{{"s3", "XOR"}, {"s3", "COLOCATE"}, {"s3", ""}} {
		if r := post(ada, bad.step, bad.op); r.status != http.StatusBadRequest {
			t.Errorf("operator %q on %s = %d %s", bad.op, bad.step, r.status, r.body)
		}
	}
	if r := post(ada, "s1", "UNION"); r.status != http.StatusUnprocessableEntity {
		t.Errorf("an operator for a search step = %d %s", r.status, r.body)
	}
	if r := post(eve, "s3", "MINUS"); r.status != http.StatusNotFound {
		t.Errorf("another user's step = %d", r.status)
	}
	if _, err := svc.Undo(ctx, ada.userID, now.StrategyID); err != nil {
		t.Fatal(err)
	}
	back, err := svc.Conversation(ctx, ada.userID, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := back.Step("s3"); st.Operator != strategy.Intersect || *st.Count != both {
		t.Errorf("undo: %s with %v genes, want INTERSECT with %d", st.Operator, st.Count, both)
	}
}

// strategyEnv is a server in auth mode with the offline gene catalog and a
// strategy service over its database; the test is skipped without the
// gene data.
func strategyEnv(t *testing.T, mode config.AuthMode) (*env, *strategies.Service) {
	t.Helper()
	cat := geneCatalog(t)
	if cat.DataErr() != nil {
		t.Skipf("gene data: %v", cat.DataErr())
	}
	var svc *strategies.Service
	e := newEnvWith(t, mode, cat, func(cfg *server.Config) {
		var err error
		svc, err = strategies.NewService(strategies.Config{Store: cfg.Store.(*store.DB), Catalog: cat})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Strategies = svc
	})
	return e, svc
}

// addGOStep adds a GO-term search for goID on P. falciparum 3D7.
func addGOStep(t *testing.T, svc *strategies.Service, userID, strategyID, goID string) strategies.Result {
	t.Helper()
	res, err := svc.Apply(context.Background(), userID, strategyID, strategy.AddSearch{SearchName: "GenesByGoTerm",
		Parameters: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["` + goID + `"]`}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
