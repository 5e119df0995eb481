package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTurnInput: bad turn requests get a clear 4xx and leave nothing behind;
// a second turn while one runs is a 409; the models list names the default.
func TestTurnInput(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "cancel_delegation.json"})
	conv := a.newConversation()
	var models struct {
		Models []struct {
			ID      string
			Default bool
		}
		Default string
	}
	if st := a.call("GET", "/api/v1/models", nil, &models); st != http.StatusOK || models.Default != "scripted:cancel_delegation.json" {
		t.Fatalf("models = %d %+v", st, models)
	}
	tests := []struct {
		name   string
		body   map[string]string
		status int
		want   string
	}{
		{"unknown mode", map[string]string{"mode": "chat", "message": "hi"}, 400, "mode"},
		{"empty message", map[string]string{"mode": "plan", "message": "   "}, 400, "message"},
		{"message too long", map[string]string{"mode": "plan", "message": strings.Repeat("x", 20_001)}, 400, "20000"},
		{"unknown model", map[string]string{"mode": "plan", "message": "hi", "model": "gpt:nope"}, 400, "offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct {
				Error struct {
					Code, Message string
					Details       map[string]any
				}
			}
			st := a.call("POST", "/api/v1/conversations/"+conv+"/turns", tt.body, &out)
			if st != tt.status || !strings.Contains(out.Error.Message+fmtDetails(out.Error.Details), tt.want) {
				t.Errorf("%d %+v, want %d mentioning %q", st, out.Error, tt.status, tt.want)
			}
		})
	}
	var detail struct{ Messages, Turns []any }
	a.call("GET", "/api/v1/conversations/"+conv, nil, &detail)
	if len(detail.Messages) != 0 || len(detail.Turns) != 0 {
		t.Errorf("refused turns left messages %d, turns %d", len(detail.Messages), len(detail.Turns))
	}

	turn := a.startTurn(conv, "execute", "Build it")
	var out struct{ Error struct{ Code string } }
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/turns", map[string]string{"mode": "plan", "message": "again"}, &out); st != http.StatusConflict || out.Error.Code != "TURN_RUNNING" {
		t.Errorf("second turn while one runs = %d %s, want 409 TURN_RUNNING", st, out.Error.Code)
	}
	a.call("POST", "/api/v1/conversations/"+conv+"/turns/"+turn+"/cancel", nil, nil)
	a.collect(conv, 0, 30*time.Second, untilTurnEnds(1))
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/turns/"+turn+"/cancel", nil, nil); st != http.StatusAccepted {
		t.Errorf("cancelling an ended turn = %d, want 202 (idempotent)", st)
	}
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/turns/00000000-0000-0000-0000-000000000000/cancel", nil, nil); st != http.StatusNotFound {
		t.Errorf("cancelling an unknown turn = %d, want 404", st)
	}
}

func fmtDetails(d map[string]any) string {
	var b strings.Builder
	for k, v := range d {
		b.WriteString(k)
		if l, ok := v.([]any); ok {
			for _, x := range l {
				if s, ok := x.(string); ok {
					b.WriteString(" " + s)
				}
			}
		}
	}
	return b.String()
}
