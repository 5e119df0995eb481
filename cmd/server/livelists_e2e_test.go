package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/wdk/wdkfake"
	"strategist/internal/eval"
	"strategist/internal/event/eventtest"
	"strategist/internal/strategy"
)

// TestLiveListsControlsAndImports: gene lists, controls and imported
// strategies on plasmodb-live, over the JSON API against the WDK fake (over
// the offline snapshot, so every figure can be computed from the raw
// files). A list resolved on the live site maps its previous id and lists
// its unknown id as offline; it is a step by hand and through the planner
// (its ids uploaded as a dataset of the researcher's account); controls
// score the planned strategy exactly; the strategy saved into the account
// imports back by its id, and another researcher imports it by its share
// link, with the same tree and counts.
func TestLiveListsControlsAndImports(t *testing.T) {
	dir := dataDir(t)
	off, err := offline.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := loadGeneData(t)
	fake, err := wdkfake.New(wdkfake.Config{Catalog: off, Site: offline.SiteID, Keys: map[string]wdkfake.User{
		"key-of-ada": {ID: 77}, "key-of-eve": {ID: 88}}})
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(fake.Handler("/plasmo"))
	t.Cleanup(site.Close)
	a := startApp(t, appOptions{Env: map[string]string{
		"STRATEGIST_SECRET_KEY":   testSecretKey,
		"STRATEGIST_WDK_BASE_URL": site.URL + "/plasmo/service",
	}})
	a.storeKey("plasmodb-live", "key-of-ada")

	// A list resolved on the live site: DNA-replication genes, one named
	// by its 2010 id, and an id that names nothing. It reads as the same
	// text resolved offline does.
	replication := data.GO("GO:0006260")
	text := "Gene ID\n" + strings.Join(slices.Sorted(maps.Keys(replication)), "\n") + "\nPFA0005w\nPF3D7_9999999\n"
	var live, offl geneListBody
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "replication screen", "text": text, "siteId": "plasmodb-live"}, &live); st != http.StatusCreated {
		t.Fatalf("POST /gene-lists on plasmodb-live = %d", st)
	}
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "offline copy", "text": text}, &offl); st != http.StatusCreated {
		t.Fatalf("POST /gene-lists offline = %d", st)
	}
	positives := eval.Union(replication, eval.Set{"PF3D7_0100100": true})
	if live.SiteID != "plasmodb-live" || live.Size != len(positives) || !slices.Equal(live.Genes, offl.Genes) ||
		!slices.Equal(live.Mapped, []catalog.IDMapping{{From: "PFA0005w", To: "PF3D7_0100100"}}) || !slices.Equal(live.Unknown, []string{"PF3D7_9999999"}) {
		t.Errorf("the list resolved live = %s %d genes, mapped %v, unknown %v; offline %d genes, mapped %v, unknown %v",
			live.SiteID, live.Size, live.Mapped, live.Unknown, offl.Size, offl.Mapped, offl.Unknown)
	}

	// The command line resolves on the live site too.
	var cli strings.Builder
	if err := run(t.Context(), []string{"lists", "add", "--name", "from the CLI", "--site", "plasmodb-live", "--url", a.URL, "--token", a.Token},
		strings.NewReader("PFA0005w\nPF3D7_9999999\n"), &cli, io.Discard, envMap(nil)); err != nil ||
		!strings.Contains(cli.String(), "1 genes") || !strings.Contains(cli.String(), "mapped\tPFA0005w → PF3D7_0100100") || !strings.Contains(cli.String(), "unknown\tPF3D7_9999999") {
		t.Errorf("strategist lists add --site plasmodb-live = %v, printed:\n%s", err, cli.String())
	}

	// By hand: the list starts a live conversation's strategy.
	newLive := func(app *testApp) string {
		var conv struct{ ID string }
		if st := app.call("POST", "/api/v1/conversations", map[string]string{"siteId": "plasmodb-live"}, &conv); st != http.StatusCreated {
			t.Fatalf("create conversation: %d", st)
		}
		return conv.ID
	}
	byHand := newLive(a)
	var added struct {
		Snapshot snapshot
		Change   struct{ StepID strategy.StepID }
	}
	if st := a.call("POST", "/api/v1/conversations/"+byHand+"/strategy/list-step", map[string]string{"listId": live.ID}, &added); st != http.StatusCreated ||
		added.Snapshot.count(added.Change.StepID) != len(positives) {
		t.Errorf("list step on plasmodb-live = %d, count %d; want %d", st, added.Snapshot.count(added.Change.StepID), len(positives))
	}
	if ups := fake.Recorded(http.MethodPost, "/users/77/datasets"); len(ups) == 0 {
		t.Error("no dataset was uploaded to the researcher's account")
	}
	if st := a.call("POST", "/api/v1/conversations/"+byHand+"/strategy/list-step", map[string]string{"listId": offl.ID}, nil); st != http.StatusUnprocessableEntity {
		t.Errorf("an offline list on a live conversation = %d, want 422", st)
	}

	// Through the planner: the list on chromosome 14, built on the site.
	planned := newLive(a)
	buildOnLive(t, a, planned, "genes in my list 'replication screen' that are on chromosome 14", 0)
	chr14 := data.On("Pf3D7_14_v3")
	var snap snapshot
	if st := a.call("GET", "/api/v1/conversations/"+planned+"/strategy", nil, &snap); st != http.StatusOK {
		t.Fatalf("strategy: %d", st)
	}
	onChr14 := eval.Intersect(positives, chr14)
	if got := snap.count(snap.RootStepID); got != len(onChr14) || len(snap.Steps) != 3 {
		t.Errorf("the planned strategy: %d steps, root count %d; want 3 steps and the list's %d genes on chromosome 14 (raw files)", len(snap.Steps), got, len(onChr14))
	}

	// Controls on the live site: the list as positives, chromosome 14's
	// genes as negatives; every step's figures equal the raw files'.
	var neg geneListBody
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "chromosome 14", "siteId": "plasmodb-live",
		"text": strings.Join(slices.Sorted(maps.Keys(chr14)), "\n")}, &neg); st != http.StatusCreated || neg.Size != len(chr14) {
		t.Fatalf("negatives = %d, %d genes; want %d", st, neg.Size, len(chr14))
	}
	if st := a.call("PUT", "/api/v1/conversations/"+planned+"/controls", map[string]any{"positives": live.ID, "negatives": neg.ID}, nil); st != http.StatusOK {
		t.Fatalf("PUT controls = %d", st)
	}
	var report struct {
		Steps []struct {
			StepID                         strategy.StepID
			PositivesFound, NegativesFound *int
			Recall, Precision              *float64
		}
	}
	if st := a.call("GET", "/api/v1/conversations/"+planned+"/strategy/controls", nil, &report); st != http.StatusOK || len(report.Steps) != 3 {
		t.Fatalf("controls = %d, %d steps", st, len(report.Steps))
	}
	for _, got := range report.Steps {
		var genes eval.Set
		switch st := stepOf(snap, got.StepID); {
		case st.SearchName == "GeneByLocusTag":
			genes = positives
		case st.SearchName == "GenesByLocation":
			genes = chr14
		default:
			genes = onChr14
		}
		pf, nf := len(eval.Intersect(genes, positives)), len(eval.Intersect(genes, chr14))
		if got.PositivesFound == nil || *got.PositivesFound != pf || got.NegativesFound == nil || *got.NegativesFound != nf ||
			got.Recall == nil || *got.Recall != float64(pf)/float64(len(positives)) ||
			got.Precision == nil || *got.Precision != float64(pf)/float64(pf+nf) {
			t.Errorf("step %s: found %v positives, %v negatives, recall %s, precision %s; raw files %d and %d",
				got.StepID, got.PositivesFound, got.NegativesFound, fmtRatio(got.Recall), fmtRatio(got.Precision), pf, nf)
		}
	}

	// Saved into the account: its list step holds a dataset id there.
	var saved struct {
		StrategyID int64 `json:"strategyId"`
	}
	if st := a.call("POST", "/api/v1/conversations/"+planned+"/strategy/veupathdb", nil, &saved); st != http.StatusCreated {
		t.Fatalf("save to VEuPathDB = %d", st)
	}
	account, ok := fake.Strategy(saved.StrategyID)
	if !ok {
		t.Fatalf("strategy %d is not in the account", saved.StrategyID)
	}
	var exported strategy.WDKStrategy
	if st := a.call("GET", "/api/v1/conversations/"+planned+"/strategy/wdk", nil, &exported); st != http.StatusOK {
		t.Fatalf("export = %d", st)
	}

	// Imported back from the account, by its id: the same tree and counts.
	fromAccount := newLive(a)
	var imported snapshot
	if st := a.call("POST", "/api/v1/conversations/"+fromAccount+"/strategy/wdk", map[string]any{"strategyId": saved.StrategyID}, &imported); st != http.StatusOK {
		t.Fatalf("import strategy %d from the account = %d", saved.StrategyID, st)
	}
	checkSameStrategy(t, a, "imported from the account", fromAccount, imported, snap, &exported)

	// Another researcher imports it by its share link into her own live
	// conversation; her account keeps nothing of it.
	eve := &testApp{t: t, URL: a.URL, app: a.app}
	u, err := a.app.accounts.CreateUser(context.Background(), "eve@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	eve.UserID = u.ID
	if eve.Token, _, err = a.app.accounts.CreateAPIToken(context.Background(), u.ID, "eve"); err != nil {
		t.Fatal(err)
	}
	eve.storeKey("plasmodb-live", "key-of-eve")
	shared := newLive(eve)
	link := site.URL + "/plasmo/app/workspace/strategies/import/" + account.Signature
	strategies := fake.StrategyCount()
	var viaLink snapshot
	if st := eve.call("POST", "/api/v1/conversations/"+shared+"/strategy/wdk", map[string]any{"shareUrl": link}, &viaLink); st != http.StatusOK {
		t.Fatalf("import by share link = %d", st)
	}
	checkSameStrategy(t, eve, "imported by its share link", shared, viaLink, snap, &exported)
	if n := fake.StrategyCount(); n != strategies {
		t.Errorf("the account holds %d strategies after the import by link, %d before: the copy was kept", n, strategies)
	}

	// The page's form does the same in a browser signed in as her.
	page := newLive(eve)
	cookie, csrf := signIn(t, a, "eve@example.org", "correct horse battery")
	if st, body := pageRequest(t, a, "GET", "/conversations/"+page, nil, cookie); st != http.StatusOK || !strings.Contains(body, `data-testid="import-veupathdb"`) {
		t.Errorf("the live conversation's page = %d without the import form", st)
	}
	if st, _ := pageRequest(t, a, "POST", "/conversations/"+page+"/strategy/import", url.Values{"csrf_token": {csrf}, "from": {link}}, cookie); st != http.StatusSeeOther {
		t.Errorf("the import form = %d, want 303 back to the conversation", st)
	}
	var viaPage snapshot
	if st := eve.call("GET", "/api/v1/conversations/"+page+"/strategy", nil, &viaPage); st != http.StatusOK || viaPage.count(viaPage.RootStepID) != snap.count(snap.RootStepID) {
		t.Errorf("after the page's import: %d, root count %d, want %d", st, viaPage.count(viaPage.RootStepID), snap.count(snap.RootStepID))
	}
	if st, body := pageRequest(t, a, "POST", "/conversations/"+page+"/strategy/import", url.Values{"csrf_token": {csrf}, "from": {"https://toxodb.org/toxo/app/workspace/strategies/import/" + account.Signature}}, cookie); st != http.StatusUnprocessableEntity || !strings.Contains(body, "toxodb.org") {
		t.Errorf("the import form with another site's link = %d, want 422 naming it", st)
	}

	// Refusals say why.
	for _, tt := range []struct {
		name   string
		conv   string
		body   map[string]any
		status int
		code   string
	}{
		{"a link of another site", shared, map[string]any{"shareUrl": "https://toxodb.org/toxo/app/workspace/strategies/import/" + account.Signature}, http.StatusUnprocessableEntity, "VALIDATION_ERROR"},
		{"an unknown signature", shared, map[string]any{"shareUrl": site.URL + "/plasmo/app/workspace/strategies/import/0123456789abcdef"}, http.StatusUnprocessableEntity, "INVALID_IMPORT"},
		{"a strategy not in her account", shared, map[string]any{"strategyId": saved.StrategyID}, http.StatusUnprocessableEntity, "INVALID_IMPORT"},
		{"an id and a link", shared, map[string]any{"strategyId": 1, "shareUrl": link}, http.StatusUnprocessableEntity, "VALIDATION_ERROR"},
		{"an offline conversation", eve.newConversation(), map[string]any{"shareUrl": link}, http.StatusConflict, "NOT_LIVE"},
	} {
		var out struct {
			Error struct{ Code, Message string }
		}
		if st := eve.call("POST", "/api/v1/conversations/"+tt.conv+"/strategy/wdk", tt.body, &out); st != tt.status || out.Error.Code != tt.code {
			t.Errorf("%s: %d %s (%s), want %d %s", tt.name, st, out.Error.Code, out.Error.Message, tt.status, tt.code)
		}
	}
	if v := fake.Violations(); len(v) != 0 {
		t.Errorf("client behaviour the live site punishes: %v", v)
	}
}

// signIn signs a browser in with the sign-in form and returns its session
// cookie and CSRF token.
func signIn(t *testing.T, a *testApp, email, password string) (*http.Cookie, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", a.URL+"/signin", strings.NewReader(url.Values{"email": {email}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "strategist_session" {
			sess, err := a.app.accounts.SessionFor(context.Background(), c.Value)
			if err != nil {
				t.Fatal(err)
			}
			return c, sess.CSRFToken
		}
	}
	t.Fatalf("sign-in = %d without a session cookie", resp.StatusCode)
	return nil, ""
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// pageRequest sends a page request (a form when form is set) with a
// browser's session cookie and returns the status and body.
func pageRequest(t *testing.T, a *testApp, method, path string, form url.Values, cookie *http.Cookie) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, a.URL+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(cookie)
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// buildOnLive plans a request in a new conversation, accepts the plan and
// waits for the build.
func buildOnLive(t *testing.T, a *testApp, conv, request string, after int64) {
	t.Helper()
	a.startTurn(conv, "plan", request)
	plan := a.collect(conv, after, 60*time.Second, untilTurnEnds(1))
	handoffs := find(plan, "handoff_requested")
	if len(handoffs) != 1 {
		t.Fatalf("%d handoffs; the plan turn:\n%s", len(handoffs), eventtest.Mask(plan))
	}
	handoff, _ := payload(t, handoffs[0])["handoffId"].(string)
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/handoffs/"+handoff+"/accept", nil, nil); st != http.StatusAccepted {
		t.Fatalf("accept: %d", st)
	}
	exec := a.collect(conv, plan[len(plan)-1].Seq, 90*time.Second, untilTurnEnds(1))
	eventtest.Check(t, append(plan, exec...))
}

func stepOf(s snapshot, id strategy.StepID) strategy.Step {
	for _, st := range s.Steps {
		if st.ID == id {
			return st
		}
	}
	return strategy.Step{}
}

// checkSameStrategy checks an imported strategy has the root count of the
// strategy it came from and exports as it did, a list step's ids compared
// as a set (the site answers them in its own order).
func checkSameStrategy(t *testing.T, app *testApp, how, conv string, got, want snapshot, exported *strategy.WDKStrategy) {
	t.Helper()
	if g, w := got.count(got.RootStepID), want.count(want.RootStepID); g != w || len(got.Steps) != len(want.Steps) {
		t.Errorf("%s: %d steps, root count %d; want %d steps and %d", how, len(got.Steps), g, len(want.Steps), w)
	}
	var again strategy.WDKStrategy
	if st := app.call("GET", "/api/v1/conversations/"+conv+"/strategy/wdk", nil, &again); st != http.StatusOK {
		t.Fatalf("%s: export = %d", how, st)
	}
	if g, w := wdkShape(sortedIDs(&again)), wdkShape(sortedIDs(exported)); g != w {
		t.Errorf("%s: exports as\n%s\nwant the strategy it came from\n%s", how, g, w)
	}
}

// sortedIDs is w with every list step's ids sorted.
func sortedIDs(w *strategy.WDKStrategy) *strategy.WDKStrategy {
	out := *w
	out.Steps = maps.Clone(w.Steps)
	for id, st := range out.Steps {
		v, ok := st.SearchConfig.Parameters["ds_gene_ids"]
		if !ok {
			continue
		}
		ids := catalog.DatasetIDs(v)
		slices.Sort(ids)
		b, _ := json.Marshal(ids)
		st.SearchConfig.Parameters = maps.Clone(st.SearchConfig.Parameters)
		st.SearchConfig.Parameters["ds_gene_ids"] = string(b)
		out.Steps[id] = st
	}
	return &out
}
