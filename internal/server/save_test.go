package server_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/server"
	"strategist/internal/sites"
	"strategist/internal/strategy"
)

// exportingStrategies is a conversation strategy of two steps that exports.
type exportingStrategies struct{ fakeStrategies }

func (*exportingStrategies) WDK(context.Context, string, string) (*strategy.WDKStrategy, error) {
	return &strategy.WDKStrategy{Name: "DNA replication", RecordType: "transcript",
		Steps:    map[strategy.StepID]strategy.WDKStep{"s1": {SearchName: "GenesByGoTerm"}},
		StepTree: strategy.WDKStepTree{StepID: "s1"}}, nil
}

// recordingSaver saves on the live sites it is given and fails with err.
type recordingSaver struct {
	mu    sync.Mutex
	saved []string
	err   error
}

func (r *recordingSaver) SaveStrategy(_ context.Context, site string, ws *strategy.WDKStrategy) (*sites.Saved, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !strings.HasSuffix(site, "-live") {
		return nil, sites.ErrNotLive
	}
	if r.err != nil {
		return nil, r.err
	}
	r.saved = append(r.saved, site+":"+ws.Name)
	return &sites.Saved{Site: site, StrategyID: 9, URL: "https://plasmodb.org/plasmo/app/workspace/strategies/9"}, nil
}

// ImportStrategy and ImportShared read nothing: the end-to-end tests read
// strategies from the WDK fake.
func (r *recordingSaver) ImportStrategy(context.Context, string, int64) (*strategy.WDKStrategy, error) {
	return nil, sites.ErrNotLive
}

func (r *recordingSaver) ImportShared(context.Context, string, string) (*strategy.WDKStrategy, error) {
	return nil, sites.ErrNotLive
}

func TestSaveToVEuPathDB(t *testing.T) {
	saver := &recordingSaver{}
	e := newLiveEnv(t, true, 5*time.Second, func(c *server.Config) {
		c.Strategies, c.Saver = &exportingStrategies{}, saver
	})
	_, token := e.user("ada@example.org")
	if r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"plasmodb-live","apiKey":"`+goodKey+`"}`); r.status != 200 {
		t.Fatalf("PUT key = %d %s", r.status, r.body)
	}
	live := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb-live"}`).json(t)["id"].(string)
	off := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`).json(t)["id"].(string)

	r := e.do("POST", "/api/v1/conversations/"+live+"/strategy/veupathdb", token, "")
	if r.status != 201 || !strings.Contains(string(r.body), `"url":"https://plasmodb.org/plasmo/app/workspace/strategies/9"`) || len(saver.saved) != 1 {
		t.Errorf("save = %d %s (%v)", r.status, r.body, saver.saved)
	}
	// A titled conversation's strategy is saved under its title.
	titled := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb-live","title":"Replication genes"}`).json(t)["id"].(string)
	if r := e.do("POST", "/api/v1/conversations/"+titled+"/strategy/veupathdb", token, ""); r.status != 201 ||
		saver.saved[len(saver.saved)-1] != "plasmodb-live:Replication genes" {
		t.Errorf("save of a titled conversation = %d %s (%v)", r.status, r.body, saver.saved)
	}
	if saver.saved[0] != "plasmodb-live:DNA replication" {
		t.Errorf("an untitled conversation's strategy was saved as %q, want its own name", saver.saved[0])
	}
	if r := e.do("POST", "/api/v1/conversations/"+off+"/strategy/veupathdb", token, ""); r.status != 409 || r.errorCode(t) != "NOT_LIVE" {
		t.Errorf("save of an offline conversation = %d %s", r.status, r.body)
	}
	saver.err = &catalog.SiteError{Site: "plasmodb-live", Kind: catalog.SiteAccount, Message: "store a current key"}
	if r := e.do("POST", "/api/v1/conversations/"+live+"/strategy/veupathdb", token, ""); r.status != 403 || r.errorCode(t) != "SITE_ACCOUNT" {
		t.Errorf("save with a revoked key = %d %s", r.status, r.body)
	}

	// The page's button (htmx) shows the link in place, or why not.
	b := e.signIn("cy@example.org")
	if r := e.post(b, "/conversations/"+live+"/strategy/veupathdb", url.Values{"csrf_token": {b.csrf}}, true); r.status != 404 {
		t.Errorf("another user's conversation = %d", r.status)
	}
	saver.err = nil
	ownerB := e.signIn("dee@example.org")
	conv, err := e.db.CreateConversation(context.Background(), ownerB.userID, "plasmodb-live", "t", "offline")
	if err != nil {
		t.Fatal(err)
	}
	r = e.post(ownerB, "/conversations/"+conv.ID+"/strategy/veupathdb", url.Values{"csrf_token": {ownerB.csrf}}, true)
	if r.status != 200 || !strings.Contains(string(r.body), `data-testid="saved-strategy-link"`) || !strings.Contains(string(r.body), "strategies/9") {
		t.Errorf("save button = %d %s", r.status, r.body)
	}
	saver.err = &catalog.SiteError{Site: "plasmodb-live", Kind: catalog.SiteUnavailable, Message: "PlasmoDB is unavailable"}
	r = e.post(ownerB, "/conversations/"+conv.ID+"/strategy/veupathdb", url.Values{"csrf_token": {ownerB.csrf}}, true)
	if r.status != 200 || !strings.Contains(string(r.body), "Not saved: PlasmoDB is unavailable") {
		t.Errorf("failed save button = %d %s", r.status, r.body)
	}
}
