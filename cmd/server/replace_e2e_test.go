package main

import (
	"net/http"
	"testing"
	"time"
)

// TestReplaceTurnAPI: POST …/turns with "replaces" regenerates the latest
// answer (no message) or sends an edited message instead of the latest
// one; the new turn_start names the replaced turn, and nothing is deleted.
// No turn to replace, or an older one, is 422 NOT_REPLACEABLE; a running
// one 409 TURN_RUNNING.
func TestReplaceTurnAPI(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "replace.json"})
	conv := a.newConversation()
	turns := "/api/v1/conversations/" + conv + "/turns"
	var out struct {
		TurnID string
		Error  struct {
			Code, Message string
			Details       map[string]any
		}
	}
	refused := func(body map[string]string, status int, code string) {
		t.Helper()
		out.Error.Code = ""
		if st := a.call("POST", turns, body, &out); st != status || out.Error.Code != code {
			t.Errorf("%v = %d %+v, want %d %s", body, st, out.Error, status, code)
		}
	}
	refused(map[string]string{"replaces": "00000000-0000-0000-0000-000000000000"}, http.StatusUnprocessableEntity, "NOT_REPLACEABLE")

	first := a.startTurn(conv, "plan", "Find kinases")
	a.collect(conv, 0, 30*time.Second, untilTurnEnds(1))
	second := a.startTurnWith(conv, map[string]string{"replaces": first})
	recs := a.collect(conv, 0, 30*time.Second, untilTurnEnds(2))
	starts := find(recs, "turn_start")
	if p := payload(t, starts[1]); p["replacesTurnId"] != first || p["message"] != "Find kinases" || p["mode"] != "plan" || starts[1].TurnID != second {
		t.Errorf("regenerated turn_start = %v, want Find kinases again in plan mode, replacing %s", p, first)
	}
	if p := payload(t, find(recs, "assistant_message")[1]); p["content"] != "Which organism? (asked again)" {
		t.Errorf("regenerated answer = %v", p["content"])
	}
	refused(map[string]string{"replaces": first, "message": "older"}, http.StatusUnprocessableEntity, "NOT_REPLACEABLE")

	third := a.startTurnWith(conv, map[string]string{"replaces": second, "message": "Find phosphatases", "mode": "plan"})
	refused(map[string]string{"replaces": third}, http.StatusConflict, "TURN_RUNNING")
	a.call("POST", turns+"/"+third+"/cancel", nil, nil)
	recs = a.collect(conv, 0, 30*time.Second, untilTurnEnds(3))
	if p := payload(t, find(recs, "turn_start")[2]); p["replacesTurnId"] != second || p["message"] != "Find phosphatases" {
		t.Errorf("edited turn_start = %v, want Find phosphatases replacing %s", p, second)
	}

	var detail struct {
		Messages []struct{ Role, Content string }
		Turns    []any
	}
	a.call("GET", "/api/v1/conversations/"+conv, nil, &detail)
	var users []string
	for _, m := range detail.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(detail.Turns) != 3 || len(users) != 3 {
		t.Errorf("after two replacements: %d turns, user messages %q; want every turn and message kept", len(detail.Turns), users)
	}
}
