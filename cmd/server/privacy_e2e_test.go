package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestEveryConversationRouteIsPrivate: for every route that takes a
// conversation id, another user gets 404 NOT_FOUND (never 403), and the
// owner's data is untouched afterwards.
func TestEveryConversationRouteIsPrivate(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "plan_build.json", Env: map[string]string{"STRATEGIST_TURN_RATE": "1000"}})
	conv := a.newConversation()
	turn := a.startTurn(conv, "plan", "Find genes in DNA replication or DNA repair, excluding chromosome 14")
	recs := a.collect(conv, 0, 60*time.Second, untilTurnEnds(1))
	handoff := payload(t, find(recs, "handoff_requested")[0])["handoffId"].(string)
	var accepted struct{ TurnID string }
	a.call("POST", "/api/v1/conversations/"+conv+"/handoffs/"+handoff+"/accept", nil, &accepted)
	a.collect(conv, recs[len(recs)-1].Seq, 60*time.Second, untilTurnEnds(1))

	eve := &testApp{t: t, URL: a.URL}
	u, err := a.app.accounts.CreateUser(context.Background(), "eve@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	eve.Token, _, err = a.app.accounts.CreateAPIToken(context.Background(), u.ID, "eve")
	if err != nil {
		t.Fatal(err)
	}
	routes := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/conversations/{c}", nil},
		{"PATCH", "/api/v1/conversations/{c}", map[string]string{"title": "mine now"}},
		{"DELETE", "/api/v1/conversations/{c}", nil},
		{"POST", "/api/v1/conversations/{c}/turns", map[string]string{"mode": "plan", "message": "hello"}},
		// Naming a model skips the first read of the conversation: the
		// start itself must refuse, and a bad request must still be a 404.
		{"POST", "/api/v1/conversations/{c}/turns", map[string]string{"mode": "plan", "message": "hello", "model": "offline"}},
		{"POST", "/api/v1/conversations/{c}/turns", map[string]string{"mode": "nope", "message": "hello", "model": "offline"}},
		{"POST", "/api/v1/conversations/{c}/turns", map[string]string{"mode": "plan", "message": "hello", "model": "nope"}},
		{"POST", "/api/v1/conversations/{c}/turns/" + turn + "/cancel", nil},
		{"GET", "/api/v1/conversations/{c}/events", nil},
		{"POST", "/api/v1/conversations/{c}/handoffs/" + handoff + "/accept", nil},
		{"GET", "/api/v1/conversations/{c}/strategy", nil},
		{"GET", "/api/v1/conversations/{c}/strategy/versions", nil},
		{"POST", "/api/v1/conversations/{c}/strategy/undo", nil},
		{"POST", "/api/v1/conversations/{c}/strategy/redo", nil},
		{"POST", "/api/v1/conversations/{c}/strategy/combine", map[string]string{"left": "s1", "right": "s2", "operator": "UNION"}},
		{"DELETE", "/api/v1/conversations/{c}/strategy/steps/s1", nil},
		{"PATCH", "/api/v1/conversations/{c}/strategy/steps/s1", map[string]string{"displayName": "mine now"}},
		{"GET", "/api/v1/conversations/{c}/strategy/steps/s1/results", nil},
		{"GET", "/api/v1/conversations/{c}/strategy/wdk", nil},
		{"POST", "/api/v1/conversations/{c}/strategy/wdk", map[string]any{"recordClassName": "transcript"}},
		{"GET", "/api/v1/conversations/{c}/controls", nil},
		{"PUT", "/api/v1/conversations/{c}/controls", map[string]any{"positives": nil, "negatives": nil}},
		{"GET", "/api/v1/conversations/{c}/strategy/controls", nil},
		{"POST", "/api/v1/conversations/{c}/strategy/list-step", map[string]string{"listId": "x"}},
		{"POST", "/api/v1/conversations/{c}/strategy/steps/s1/gene-list", map[string]string{"name": "mine"}},
		{"GET", "/api/v1/conversations/{c}/strategy/genes/PF3D7_0100100/trace", nil},
	}
	for _, rt := range routes {
		path := strings.ReplaceAll(rt.path, "{c}", conv)
		var out struct{ Error struct{ Code string } }
		if st := eve.call(rt.method, path, rt.body, &out); st != http.StatusNotFound || out.Error.Code != "NOT_FOUND" {
			t.Errorf("%s %s as another user = %d %s, want 404 NOT_FOUND", rt.method, rt.path, st, out.Error.Code)
		}
	}
	var detail struct {
		Title string
		Turns []struct{ Status string }
	}
	if st := a.call("GET", "/api/v1/conversations/"+conv, nil, &detail); st != http.StatusOK || len(detail.Turns) != 2 || detail.Title == "mine now" {
		t.Errorf("the owner's conversation after the attempts: %d %+v", st, detail)
	}
	var snap struct{ Version int }
	a.call("GET", "/api/v1/conversations/"+conv+"/strategy", nil, &snap)
	if snap.Version == 0 {
		t.Error("the strategy was changed or lost")
	}
}
