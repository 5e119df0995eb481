package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/offlinetest"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// builtConversation gives Ada a conversation with one completed turn: her
// question, the assistant's answer, a delegation plan and a two-step
// strategy whose result has 42 genes counted on the offline snapshot.
func builtConversation(t *testing.T, e *pageEnv, b browser) store.Conversation {
	t.Helper()
	conv := e.conversation(b, "Merozoite kinases")
	count, inputCount := 42, 120
	prov := &catalog.Provenance{Source: "PlasmoDB export (offline snapshot)", Release: "68", Offline: true}
	snap := strategy.Snapshot{StrategyID: "77777777-7777-7777-7777-777777777777", Version: 2, Name: "Kinases", RecordType: "transcript",
		SiteID: "plasmodb", RootStepID: "s2", Roots: []strategy.StepID{"s2"}, Steps: []strategy.Step{
			{ID: "s1", Kind: strategy.KindSearch, SearchName: "GenesByText", DisplayName: "Text: kinase", Parameters: map[string]string{"text_expression": "kinase", "text_search_organism": `["Plasmodium falciparum 3D7"]`},
				Inputs: []strategy.StepID{}, Count: &inputCount, CountStatus: strategy.CountOK, CountProvenance: prov},
			{ID: "s2", Kind: strategy.KindTransform, SearchName: "GenesByOrthologs", DisplayName: "Rhoptry orthologs", Parameters: map[string]string{},
				Inputs: []strategy.StepID{"s1"}, Count: &count, CountStatus: strategy.CountOK, CountProvenance: prov},
		}}
	raw, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	tb := event.Base{TurnID: "44444444-4444-4444-4444-444444444441"}
	appendEvents(t, e.db, conv.ID,
		&event.TurnStart{Base: tb, Mode: "execute", Model: "offline", Message: "Kinases expressed in merozoites"},
		&event.SubagentPlan{Base: tb, DelegationID: "55555555-5555-5555-5555-555555555555", Goal: "Find merozoite kinases",
			Nodes: []event.PlanNode{{ID: "n1", Kind: "task", Label: "Text search for kinase", DependsOn: []string{}}}},
		&event.GraphSnapshot{Base: tb, StrategyID: snap.StrategyID, Version: 2, Snapshot: raw},
		&event.AssistantMessage{Base: tb, MessageID: "m1", Content: "I built **two steps** ending at the orthologs."},
		&event.TurnEnd{Base: tb, Status: "completed", DurationMs: 10},
	)
	return conv
}

func TestSearchAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "local")
	ada, adaToken := e.user("ada@example.org")
	_, eveToken := e.user("eve@example.org")
	ctx := context.Background()
	conv, err := e.db.CreateConversation(ctx, ada.ID, "plasmodb", "Merozoite kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.AddMessages(ctx, conv.ID, "", []store.NewMessage{{Role: store.RoleUser, Content: "only those in the rhoptry"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.CreateConversation(ctx, ada.ID, "plasmodb", "Invasion", "offline"); err != nil {
		t.Fatal(err)
	}

	list := func(token, q string) []map[string]any {
		t.Helper()
		r := e.do("GET", "/api/v1/conversations?q="+url.QueryEscape(q), token, "")
		if r.status != http.StatusOK {
			t.Fatalf("search %q = %d %s", q, r.status, r.body)
		}
		var out struct{ Conversations []map[string]any }
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatal(err)
		}
		return out.Conversations
	}
	hits := list(adaToken, "kinase")
	if len(hits) != 1 || hits[0]["title"] != "Merozoite kinases" || hits[0]["snippet"] != "Merozoite kinases" {
		t.Errorf("search kinase = %v", hits)
	}
	if hl, _ := hits[0]["highlights"].([]any); len(hl) != 1 || hl[0] != "kinases" {
		t.Errorf("highlights = %v", hits[0]["highlights"])
	}
	if hits := list(adaToken, "rhoptry"); len(hits) != 1 || hits[0]["id"] != conv.ID || !strings.Contains(hits[0]["snippet"].(string), "rhoptry") {
		t.Errorf("search of a message word = %v", hits)
	}
	if hits := list(adaToken, "apicoplast"); len(hits) != 0 {
		t.Errorf("search of an absent word = %v", hits)
	}
	if hits := list(eveToken, "kinase"); len(hits) != 0 {
		t.Errorf("Eve finds Ada's conversation: %v", hits)
	}
	if hits := list(adaToken, ""); len(hits) != 2 {
		t.Errorf("an empty q lists everything: %v", hits)
	}
	if r := e.do("GET", "/api/v1/conversations?q="+strings.Repeat("a", 201), adaToken, ""); r.status != http.StatusBadRequest {
		t.Errorf("a 201-character search = %d, want 400", r.status)
	}
}

func TestListPageSearch(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada := e.signIn("ada@example.org")
	builtConversation(t, e, ada)
	e.conversation(ada, "Invasion genes")
	get := func(path string, htmx bool) response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(ada.cookie)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		return e.send(req)
	}
	// A title's word finds its conversation; htmx gets the results alone.
	r := get("/?q=kinase", true)
	d := doc(t, r)
	if r.status != http.StatusOK || d.Find("header.top").Length() != 0 || testid(d, "conversation-item").Length() != 1 {
		t.Fatalf("htmx search = %d, %d items: %s", r.status, testid(d, "conversation-item").Length(), r.body)
	}
	if got := testid(d, "search-snippet").Find("mark").Text(); got != "kinases" {
		t.Errorf("marked words = %q", got)
	}
	// A plain page keeps the search in its box; nothing found says so.
	d = doc(t, get("/?q=apicoplast", false))
	if v, _ := testid(d, "conversation-search").Attr("value"); v != "apicoplast" {
		t.Errorf("search box = %q", v)
	}
	if testid(d, "empty-search").Length() != 1 || testid(d, "conversation-item").Length() != 0 {
		t.Errorf("an empty search result does not say so")
	}
	if d.Find(`label[for="conversation-search"]`).Length() != 1 {
		t.Errorf("the search box has no label")
	}
}

func TestExport(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := builtConversation(t, e, ada)
	get := func(b browser, path string) response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(b.cookie)
		return e.send(req)
	}
	base := "/api/v1/conversations/" + conv.ID + "/export"

	r := get(ada, base+"?format=md")
	md := string(r.body)
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/markdown") ||
		!strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment; filename=\"strategist-") {
		t.Fatalf("markdown export = %d %q %q", r.status, r.header.Get("Content-Type"), r.header.Get("Content-Disposition"))
	}
	for _, want := range []string{
		"# Merozoite kinases", "> Kinases expressed in merozoites", "I built **two steps**",
		"## Delegation plan", "Find merozoite kinases", "Text search for kinase",
		"Result: **42 genes** (step s2)", "s2 · Rhoptry orthologs", "search `GenesByOrthologs`", "(count 42)",
		"  - **s1 · Text: kinase**", "`text_expression` = `kinase`", "count from: PlasmoDB export (offline snapshot), release 68",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "Kinases expressed") > strings.Index(md, "I built") {
		t.Errorf("messages out of order:\n%s", md)
	}

	r = get(ada, base+"?format=json")
	var exp struct {
		Title    string
		Messages []struct{ Role, Text string }
		Plan     struct{ Goal string }
		Strategy struct {
			RootStepID string
			Steps      []struct {
				ID              string
				SearchName      string
				Count           int
				CountProvenance struct{ Source string }
				Parameters      map[string]string
			}
		}
	}
	if err := json.Unmarshal(r.body, &exp); err != nil || r.status != http.StatusOK {
		t.Fatalf("json export = %d %v", r.status, err)
	}
	if exp.Title != "Merozoite kinases" || len(exp.Messages) != 2 || exp.Messages[0].Role != "user" || exp.Messages[1].Role != "assistant" ||
		exp.Plan.Goal != "Find merozoite kinases" || exp.Strategy.RootStepID != "s2" || len(exp.Strategy.Steps) != 2 ||
		exp.Strategy.Steps[1].Count != 42 || exp.Strategy.Steps[0].Parameters["text_expression"] != "kinase" ||
		exp.Strategy.Steps[1].CountProvenance.Source == "" {
		t.Errorf("json export = %+v", exp)
	}

	if r := get(eve, base+"?format=md"); r.status != http.StatusNotFound {
		t.Errorf("Eve exports Ada's conversation: %d, want 404", r.status)
	}
	if r := get(ada, base+"?format=pdf"); r.status != http.StatusBadRequest {
		t.Errorf("format=pdf = %d, want 400", r.status)
	}
}

func TestShareLinks(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := builtConversation(t, e, ada)
	apiAs := func(b browser, method, path, body string, csrf bool) response {
		req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if csrf {
			req.Header.Set("X-CSRF-Token", b.csrf)
		}
		req.AddCookie(b.cookie)
		return e.send(req)
	}
	base := "/api/v1/conversations/" + conv.ID + "/share"

	// A browser session must send its CSRF token and JSON.
	if r := apiAs(ada, "POST", base, `{"public":true}`, false); r.status != http.StatusForbidden {
		t.Errorf("share without the CSRF token = %d, want 403", r.status)
	}
	if r := apiAs(eve, "POST", base, `{"public":true}`, true); r.status != http.StatusNotFound {
		t.Errorf("Eve shares Ada's conversation: %d, want 404", r.status)
	}
	r := apiAs(ada, "POST", base, `{"public":true}`, true)
	if r.status != http.StatusCreated {
		t.Fatalf("share = %d %s", r.status, r.body)
	}
	var pub struct {
		ID, URL, Token string
		Public         bool
		EventSeq       int64
	}
	if err := json.Unmarshal(r.body, &pub); err != nil {
		t.Fatal(err)
	}
	if !pub.Public || pub.EventSeq != 5 || !strings.HasSuffix(pub.URL, "/shared/"+pub.Token) || len(pub.Token) < 40 {
		t.Errorf("share = %+v", pub)
	}
	// Without a body the link is for signed-in accounts.
	r = apiAs(ada, "POST", base, "", true)
	var priv struct {
		ID, URL string
		Public  bool
	}
	if err := json.Unmarshal(r.body, &priv); err != nil || r.status != http.StatusCreated || priv.Public {
		t.Fatalf("private share = %d %s", r.status, r.body)
	}

	// Later events are not on the shared page.
	tb := event.Base{TurnID: "44444444-4444-4444-4444-444444444442"}
	appendEvents(t, e.db, conv.ID,
		&event.TurnStart{Base: tb, Mode: "plan", Model: "offline", Message: "a later secret question"},
		&event.TurnEnd{Base: tb, Status: "completed", DurationMs: 10},
	)
	other := e.conversation(ada, "Ada's other conversation")
	if _, err := e.db.RenameConversation(context.Background(), ada.userID, conv.ID, "A later secret title"); err != nil {
		t.Fatal(err)
	}

	path := func(u string) string {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return p.Path
	}
	// A public link opens without a session: read-only, as it was.
	r = e.page(path(pub.URL), nil)
	if r.status != http.StatusOK {
		t.Fatalf("public link without a session = %d %s", r.status, r.body)
	}
	d := doc(t, r)
	if got := r.header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("Referrer-Policy = %q, want no-referrer", got)
	}
	if testid(d, "shared-conversation").Length() != 1 || testid(d, "strategy-graph").Length() != 1 ||
		strings.TrimSpace(testid(d, "strategy-root-count").Text()) != "42 genes" || testid(d, "shared-plan").Length() != 1 {
		t.Errorf("shared page lacks the conversation, plan or strategy: %s", r.body)
	}
	body := string(r.body)
	if d.Find("form").Length() != 0 || testid(d, "composer").Length() != 0 || d.Find("textarea").Length() != 0 ||
		d.Find("button").Length() != 0 || strings.Contains(body, "hx-post") || strings.Contains(body, "hx-get") || strings.Contains(body, "sse-connect") {
		t.Errorf("shared page offers actions: %s", body)
	}
	if got := testid(d, "conversation-title").Text(); got != "Merozoite kinases" {
		t.Errorf("shared title = %q, want the title when it was shared", got)
	}
	if strings.Contains(body, "a later secret question") || strings.Contains(body, "A later secret title") || strings.Contains(body, other.ID) || strings.Contains(body, "Ada's other conversation") ||
		strings.Contains(body, "/conversations/") {
		t.Errorf("shared page shows more than the shared conversation as it was: %s", body)
	}
	if !strings.Contains(body, "Kinases expressed in merozoites") || !strings.Contains(body, "two steps") {
		t.Errorf("shared page lacks the messages")
	}

	// A link for accounts sends an anonymous visitor to sign in, and opens
	// for any signed-in account.
	r = e.page(path(priv.URL), nil)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/signin?next="+url.QueryEscape(path(priv.URL)) {
		t.Errorf("private link without a session = %d %q", r.status, r.header.Get("Location"))
	}
	if r := e.page(path(priv.URL), eve.cookie); r.status != http.StatusOK || testid(doc(t, r), "shared-conversation").Length() != 1 {
		t.Errorf("private link for Eve = %d", r.status)
	}

	// The list shows both links without their tokens; Eve sees none.
	r = apiAs(ada, "GET", base, "", false)
	if r.status != http.StatusOK || strings.Contains(string(r.body), pub.Token) || strings.Count(string(r.body), `"id"`) != 2 {
		t.Errorf("list = %d %s", r.status, r.body)
	}
	if r := apiAs(eve, "GET", base, "", false); r.status != http.StatusNotFound {
		t.Errorf("Eve lists Ada's links: %d, want 404", r.status)
	}

	// Revoked: the link is gone (410); Eve cannot revoke it; twice is 404.
	if r := apiAs(eve, "DELETE", base+"/"+pub.ID, "", true); r.status != http.StatusNotFound {
		t.Errorf("Eve revokes Ada's link: %d, want 404", r.status)
	}
	if r := apiAs(ada, "DELETE", base+"/"+pub.ID, "", true); r.status != http.StatusNoContent {
		t.Fatalf("revoke = %d %s", r.status, r.body)
	}
	if r := e.page(path(pub.URL), nil); r.status != http.StatusGone || strings.Contains(string(r.body), "Merozoite") {
		t.Errorf("revoked link = %d, want 410 without the conversation", r.status)
	}
	if r := apiAs(ada, "DELETE", base+"/"+pub.ID, "", true); r.status != http.StatusNotFound {
		t.Errorf("second revoke = %d, want 404", r.status)
	}
	// Unknown and malformed tokens are 404.
	for _, p := range []string{"/shared/shr_" + strings.Repeat("A", 43), "/shared/nonsense"} {
		if r := e.page(p, nil); r.status != http.StatusNotFound {
			t.Errorf("%s = %d, want 404", p, r.status)
		}
	}
}

func TestShareForm(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := builtConversation(t, e, ada)
	base := "/conversations/" + conv.ID + "/share"
	get := func(b browser, path string) response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.Header.Set("HX-Request", "true")
		req.AddCookie(b.cookie)
		return e.send(req)
	}

	d := doc(t, e.page("/conversations/"+conv.ID, ada.cookie))
	for _, id := range []string{"export-markdown", "export-json", "share-toggle", "share-panel"} {
		if testid(d, id).Length() != 1 {
			t.Errorf("conversation page lacks %s", id)
		}
	}
	if got := testid(d, "export-markdown").AttrOr("href", ""); got != "/api/v1/conversations/"+conv.ID+"/export?format=md" {
		t.Errorf("Markdown export links to %q", got)
	}
	if got := testid(d, "share-toggle").AttrOr("data-load", ""); got != base {
		t.Errorf("the Share control loads %q", got)
	}

	// The panel: the form, no links yet.
	f := doc(t, get(ada, base))
	if testid(f, "share-public").Length() != 1 || testid(f, "share-create").Length() != 1 || testid(f, "share-item").Length() != 0 {
		t.Errorf("the first panel lacks its form or has links")
	}
	if r := get(eve, base); r.status != http.StatusNotFound {
		t.Errorf("Eve's panel of Ada's conversation = %d, want 404", r.status)
	}

	r := e.post(ada, base, url.Values{"csrf_token": {ada.csrf}, "public": {"true"}}, true)
	f = doc(t, r)
	link := testid(f, "share-url").AttrOr("value", "")
	if r.status != http.StatusCreated || !strings.Contains(link, "/shared/shr_") || f.Find("header.top").Length() != 0 {
		t.Fatalf("share form = %d, link %q", r.status, link)
	}
	items := testid(f, "share-item")
	if items.Length() != 1 || items.AttrOr("data-revoked", "") != "false" || !strings.Contains(items.Text(), "Public link") {
		t.Errorf("links after sharing: %d %q", items.Length(), items.Text())
	}
	u, _ := url.Parse(link)
	if r := e.page(u.Path, nil); r.status != http.StatusOK {
		t.Errorf("the form's public link = %d", r.status)
	}
	// Shown once: the panel drawn again has the link listed, not its address.
	if strings.Contains(string(get(ada, base).body), u.Path) {
		t.Errorf("the panel shows the link's token again")
	}
	if r := e.post(eve, base, url.Values{"csrf_token": {eve.csrf}}, true); r.status != http.StatusNotFound {
		t.Errorf("Eve's share form on Ada's conversation = %d, want 404", r.status)
	}
	if r := e.post(ada, base, url.Values{}, false); r.status != http.StatusForbidden {
		t.Errorf("share form without its token = %d, want 403", r.status)
	}

	// Revoke from the panel: the link is listed as revoked and answers 410.
	shareID := items.AttrOr("data-share-id", "")
	if r := e.post(eve, base+"/"+shareID+"/revoke", url.Values{"csrf_token": {eve.csrf}}, true); r.status != http.StatusNotFound {
		t.Errorf("Eve revokes Ada's link = %d, want 404", r.status)
	}
	r = e.post(ada, base+"/"+shareID+"/revoke", url.Values{"csrf_token": {ada.csrf}}, true)
	f = doc(t, r)
	if r.status != http.StatusOK || testid(f, "share-item").AttrOr("data-revoked", "") != "true" || testid(f, "share-revoke").Length() != 0 {
		t.Errorf("revoke form = %d %s", r.status, r.body)
	}
	if r := e.page(u.Path, nil); r.status != http.StatusGone {
		t.Errorf("the revoked link = %d, want 410", r.status)
	}
}

// TestSharedStepGenes: the shared page offers each counted step's genes
// through its link, read from the strategy as it was shared; whoever may
// open the link may download them, nobody else, and a revoked link
// downloads nothing.
func TestSharedStepGenes(t *testing.T) {
	t.Parallel()
	cat, err := offline.Open(offlinetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	e := newPageEnvOn(t, cat)
	ada := e.signIn("ada@example.org")
	eve := e.signIn("eve@example.org")
	conv := builtConversation(t, e, ada)
	share := func(public bool) (id, path string) {
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/conversations/"+conv.ID+"/share", strings.NewReader(fmt.Sprintf(`{"public":%t}`, public)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("X-CSRF-Token", ada.csrf)
		req.AddCookie(ada.cookie)
		r := e.send(req)
		var sh struct{ ID, URL string }
		if err := json.Unmarshal(r.body, &sh); err != nil || r.status != http.StatusCreated {
			t.Fatalf("share = %d %s", r.status, r.body)
		}
		u, _ := url.Parse(sh.URL)
		return sh.ID, u.Path
	}
	pubID, pub := share(true)
	_, priv := share(false)

	// The page links each step's genes through the link, in TSV and CSV.
	d := doc(t, e.page(pub, nil))
	links := testid(d, "shared-download-tsv")
	if links.Length() != 2 {
		t.Fatalf("%d TSV links, want one per counted step", links.Length())
	}
	tsv, _ := links.First().Attr("href")
	if want := pub + "/steps/s1/genes?format=tsv"; tsv != want {
		t.Errorf("TSV link = %q, want %q", tsv, want)
	}

	// Without a session: the text search's genes, every one, as TSV.
	r := e.page(tsv, nil)
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/tab-separated-values") {
		t.Fatalf("public TSV = %d %q %.200s", r.status, r.header.Get("Content-Type"), r.body)
	}
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	var n int
	if _, err := fmt.Sscanf(lines[0], "# %d genes of step s1", &n); err != nil || n == 0 {
		t.Fatalf("first line %q: %v", lines[0], err)
	}
	if got := len(lines) - 2; got != n || !strings.HasPrefix(lines[2], "PF3D7_") {
		t.Errorf("%d gene rows (first %q), want the %d the header says", got, lines[2], n)
	}
	if r := e.page(pub+"/steps/s1/genes?format=csv", nil); r.status != http.StatusOK || !strings.Contains(string(r.body), "gene_id,product") {
		t.Errorf("public CSV = %d %.200s", r.status, r.body)
	}

	// The private link's genes: sign in first, then any account.
	if r := e.page(priv+"/steps/s1/genes?format=tsv", nil); r.status != http.StatusSeeOther {
		t.Errorf("private link's genes without a session = %d, want 303", r.status)
	}
	if r := e.page(priv+"/steps/s1/genes?format=tsv", eve.cookie); r.status != http.StatusOK {
		t.Errorf("private link's genes for Eve = %d", r.status)
	}
	for _, bad := range []struct {
		path string
		want int
	}{
		{pub + "/steps/s9/genes?format=tsv", http.StatusNotFound},
		{pub + "/steps/s1/genes?format=xls", http.StatusBadRequest},
		{"/shared/shr_" + strings.Repeat("A", 43) + "/steps/s1/genes?format=tsv", http.StatusNotFound},
	} {
		if r := e.page(bad.path, nil); r.status != bad.want {
			t.Errorf("%s = %d, want %d", bad.path, r.status, bad.want)
		}
	}

	// Revoked, the link downloads nothing.
	req, _ := http.NewRequest("DELETE", e.srv.URL+"/api/v1/conversations/"+conv.ID+"/share/"+pubID, nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("X-CSRF-Token", ada.csrf)
	req.AddCookie(ada.cookie)
	if r := e.send(req); r.status != http.StatusNoContent {
		t.Fatalf("revoke = %d", r.status)
	}
	if r := e.page(tsv, nil); r.status != http.StatusGone || strings.Contains(string(r.body), "PF3D7_") {
		t.Errorf("revoked link's genes = %d, want 410 and none", r.status)
	}
}
