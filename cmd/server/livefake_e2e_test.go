package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/wdk/wdkfake"
	"strategist/internal/event/eventtest"
)

// A whole conversation on plasmodb-live against the WDK fake (over the
// offline snapshot): the offline engine plans and builds through the live
// catalog, the counts are the snapshot's (89 at the root), the strategy is
// saved into the account with a link to the fake's workspace page; then
// the key is revoked in the middle of a build.
func TestLiveConversationAgainstTheFake(t *testing.T) {
	fake, err := wdkfake.New(wdkfake.Config{Catalog: geneCatalog(t), Site: offline.SiteID, Keys: map[string]wdkfake.User{"key-of-ada": {ID: 77}}})
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

	var conv struct{ ID string }
	if st := a.call("POST", "/api/v1/conversations", map[string]string{"siteId": "plasmodb-live"}, &conv); st != http.StatusCreated {
		t.Fatalf("create conversation: %d", st)
	}
	a.startTurn(conv.ID, "plan", acceptanceRequest)
	plan := a.collect(conv.ID, 0, 60*time.Second, untilTurnEnds(1))
	handoffs := find(plan, "handoff_requested")
	if len(handoffs) != 1 {
		t.Fatalf("%d handoffs; the plan turn:\n%s", len(handoffs), eventtest.Mask(plan))
	}
	handoff, _ := payload(t, handoffs[0])["handoffId"].(string)
	if st := a.call("POST", "/api/v1/conversations/"+conv.ID+"/handoffs/"+handoff+"/accept", nil, nil); st != http.StatusAccepted {
		t.Fatalf("accept: %d", st)
	}
	exec := a.collect(conv.ID, plan[len(plan)-1].Seq, 90*time.Second, untilTurnEnds(1))
	eventtest.Check(t, append(plan, exec...))

	var snap snapshot
	if st := a.call("GET", "/api/v1/conversations/"+conv.ID+"/strategy", nil, &snap); st != http.StatusOK {
		t.Fatalf("strategy: %d", st)
	}
	if len(snap.Roots) != 1 || snap.count(snap.Roots[0]) != 89 || len(snap.Steps) != 5 {
		t.Errorf("strategy roots %v with %d steps, root count %d, want one root of 89 over 5 steps\n%s",
			snap.Roots, len(snap.Steps), snap.count(firstOr(snap.Roots)), eventtest.Mask(exec))
	}

	var saved struct {
		StrategyID int64  `json:"strategyId"`
		URL        string `json:"url"`
	}
	if st := a.call("POST", "/api/v1/conversations/"+conv.ID+"/strategy/veupathdb", nil, &saved); st != http.StatusOK && st != http.StatusCreated {
		t.Fatalf("save to VEuPathDB: %d", st)
	}
	if want := site.URL + "/plasmo/app/workspace/strategies/" + strconv.FormatInt(saved.StrategyID, 10); saved.URL != want {
		t.Errorf("saved link %q, want %q", saved.URL, want)
	}
	if s, ok := fake.Strategy(saved.StrategyID); !ok || s.Owner != 77 || s.Name != "(DNA replication or DNA repair) excluding chromosome 14" {
		t.Errorf("the account holds %+v (found %v)", s, ok)
	}

	// The key is revoked at the site in the middle of a follow-up's build
	// (its first account request): the turn completes, names the step
	// whose count failed and says what to do; the built steps keep their
	// counts.
	a.startTurn(conv.ID, "plan", "now also exclude chromosome 5")
	plan2 := a.collect(conv.ID, exec[len(exec)-1].Seq, 60*time.Second, untilTurnEnds(1))
	handoffs = find(plan2, "handoff_requested")
	if len(handoffs) != 1 {
		t.Fatalf("%d handoffs; the follow-up's plan turn:\n%s", len(handoffs), eventtest.Mask(plan2))
	}
	fake.RevokeAt("key-of-ada", "/users/")
	handoff, _ = payload(t, handoffs[0])["handoffId"].(string)
	if st := a.call("POST", "/api/v1/conversations/"+conv.ID+"/handoffs/"+handoff+"/accept", nil, nil); st != http.StatusAccepted {
		t.Fatalf("accept: %d", st)
	}
	exec2 := a.collect(conv.ID, plan2[len(plan2)-1].Seq, 90*time.Second, untilTurnEnds(1))
	eventtest.Check(t, append(plan2, exec2...))
	if end := find(exec2, "turn_end"); len(end) != 1 || payload(t, end[0])["status"] != "completed" {
		t.Errorf("the build with a revoked key ended %v", end)
	}
	var got struct {
		Messages []struct{ Role, Content string }
	}
	if st := a.call("GET", "/api/v1/conversations/"+conv.ID, nil, &got); st != http.StatusOK || len(got.Messages) == 0 {
		t.Fatalf("conversation: %d", st)
	}
	said := got.Messages[len(got.Messages)-1].Content
	for _, want := range []string{": count failed:", "refused your VEuPathDB API key", "Settings page"} {
		if !strings.Contains(said, want) {
			t.Errorf("the build's answer does not say %q:\n%s", want, said)
		}
	}
	var after snapshot
	if st := a.call("GET", "/api/v1/conversations/"+conv.ID+"/strategy", nil, &after); st != http.StatusOK {
		t.Fatalf("strategy: %d", st)
	}
	for _, st := range snap.Steps {
		if after.count(st.ID) != snap.count(st.ID) {
			t.Errorf("step %s counted %d before the revocation, %d after", st.ID, snap.count(st.ID), after.count(st.ID))
		}
	}
	if v := fake.Violations(); len(v) != 0 {
		t.Errorf("client behaviour the live site punishes: %v", v)
	}
}

func firstOr[T any](s []T) T {
	var zero T
	if len(s) == 0 {
		return zero
	}
	return s[0]
}
