package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"strategist/internal/catalog/wdk"
	"strategist/internal/event/eventtest"
)

// testSecretKey is a STRATEGIST_SECRET_KEY for tests.
var testSecretKey = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

type siteState struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Live      bool   `json:"live"`
	Available bool   `json:"available"`
	Message   string `json:"message"`
}

func (a *testApp) sites() map[string]siteState {
	a.t.Helper()
	var out struct{ Sites []siteState }
	if st := a.call("GET", "/api/v1/sites", nil, &out); st != http.StatusOK {
		a.t.Fatalf("GET /api/v1/sites = %d", st)
	}
	m := map[string]siteState{}
	for _, s := range out.Sites {
		m[s.ID] = s
	}
	return m
}

// storeKey saves a sealed API key for the app's user directly in the store
// (the settings page checks it against the site first).
func (a *testApp) storeKey(site, key string) {
	a.t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(testSecretKey)
	creds, err := wdk.NewCredentials(raw)
	if err != nil {
		a.t.Fatal(err)
	}
	sealed, err := creds.Seal(a.UserID, site, key)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.app.db.PutWDKCredential(context.Background(), a.UserID, site, sealed, nil); err != nil {
		a.t.Fatal(err)
	}
}

func TestSitesListsLiveSites(t *testing.T) {
	t.Run("without a server key", func(t *testing.T) {
		a := startApp(t, appOptions{})
		got := a.sites()
		if len(got) != 14 {
			t.Errorf("%d sites, want the offline one and 13 live ones: %v", len(got), got)
		}
		if s := got["plasmodb"]; s.Live || !s.Available {
			t.Errorf("offline plasmodb = %+v", s)
		}
		for _, id := range []string{"plasmodb-live", "toxodb-live", "cryptodb-live", "fungidb-live", "tritrypdb-live", "vectorbase-live",
			"hostdb-live", "giardiadb-live", "amoebadb-live", "microsporidiadb-live", "piroplasmadb-live", "trichdb-live", "veupathdb-live"} {
			s := got[id]
			if !s.Live || s.Available || !strings.Contains(s.Message, "STRATEGIST_SECRET_KEY") {
				t.Errorf("%s = %+v, want live, unavailable, saying to set STRATEGIST_SECRET_KEY", id, s)
			}
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		if st := a.call("POST", "/api/v1/conversations", map[string]string{"siteId": "toxodb-live"}, &e); st != 422 || !strings.Contains(e.Error.Message, "STRATEGIST_SECRET_KEY") {
			t.Errorf("conversation on an unavailable live site = %d %+v", st, e)
		}
	})
	t.Run("with a stored key", func(t *testing.T) {
		a := startApp(t, appOptions{Env: map[string]string{"STRATEGIST_SECRET_KEY": testSecretKey}})
		a.storeKey("toxodb-live", "key-of-ada")
		got := a.sites()
		if s := got["toxodb-live"]; !s.Live || !s.Available {
			t.Errorf("toxodb-live with a key = %+v", s)
		}
		if s := got["plasmodb-live"]; s.Available || !strings.Contains(s.Message, "API key") {
			t.Errorf("plasmodb-live without a key = %+v", s)
		}
		if st := a.call("POST", "/api/v1/conversations", map[string]string{"siteId": "toxodb-live"}, nil); st != http.StatusCreated {
			t.Errorf("conversation on toxodb-live = %d", st)
		}
	})
}

// silentListener accepts connections and never answers them.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/plasmo/service"
}

// The bar: a live site that accepts connections and never answers gives a
// clear JSON error within 10 s.
func TestLiveCountAgainstSilentSite(t *testing.T) {
	a := startApp(t, appOptions{Env: map[string]string{
		"STRATEGIST_SECRET_KEY":   testSecretKey,
		"STRATEGIST_WDK_BASE_URL": silentListener(t),
	}})
	a.storeKey("plasmodb-live", "key-of-ada")
	start := time.Now()
	var e struct {
		Error struct{ Code, Message string }
	}
	st := a.call("POST", "/api/v1/catalog/plasmodb-live/searches/GenesByGoTerm/count", map[string]any{"parameters": map[string]string{}}, &e)
	took := time.Since(start)
	t.Logf("count on a silent live site: %d %+v after %s", st, e, took)
	if took > 10*time.Second {
		t.Errorf("answered after %s, want within 10 s", took)
	}
	if st != http.StatusServiceUnavailable || e.Error.Code != "SITE_UNAVAILABLE" || !strings.Contains(e.Error.Message, "did not answer") {
		t.Errorf("count = %d %+v, want 503 SITE_UNAVAILABLE saying the site did not answer", st, e)
	}
}

// A plan turn on a live conversation asks the live site, not the offline
// snapshot: against a site that never answers, the planner's catalog calls
// end within STRATEGIST_LIVE_TIMEOUT with a message naming the site, and
// the turn still ends.
func TestPlanTurnOnLiveSiteUsesItsCatalog(t *testing.T) {
	a := startApp(t, appOptions{Env: map[string]string{
		"STRATEGIST_SECRET_KEY":   testSecretKey,
		"STRATEGIST_WDK_BASE_URL": silentListener(t),
		"STRATEGIST_LIVE_TIMEOUT": "300ms",
	}})
	a.storeKey("plasmodb-live", "key-of-ada")
	var conv struct{ ID string }
	if st := a.call("POST", "/api/v1/conversations", map[string]string{"siteId": "plasmodb-live"}, &conv); st != http.StatusCreated {
		t.Fatalf("create conversation: %d", st)
	}
	a.startTurn(conv.ID, "plan", "Find genes involved in DNA repair")
	recs := a.collect(conv.ID, 0, 60*time.Second, untilTurnEnds(1))
	eventtest.Check(t, recs)
	var calls, siteErrors int
	for _, r := range find(recs, "tool_call_end") {
		p := payload(t, r)
		calls++
		if e, ok := p["error"].(map[string]any); ok && strings.Contains(fmt.Sprint(e["message"]), "plasmodb-live) did not answer within 300ms") {
			siteErrors++
		}
	}
	if calls == 0 || siteErrors == 0 {
		t.Errorf("%d tool calls, %d saying the live site did not answer:\n%s", calls, siteErrors, eventtest.Mask(recs))
	}
}
