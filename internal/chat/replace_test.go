package chat_test

import (
	"errors"
	"slices"
	"testing"

	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/store"
)

// TestReplaceLatestTurn: the latest turn, once ended, is replaced by a new
// turn that answers the same message again (regenerate) or an edited one;
// the new turn's turn_start names the replaced turn, its model sees no
// message of a replaced turn, and nothing is deleted. Replacing an older
// turn, a running one, or in a conversation without turns is refused; in
// another user's conversation it is not found.
func TestReplaceLatestTurn(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[
		{"text":"first answer"},
		{"text":"second answer"},
		{"toolCalls":[{"name":"wait","args":{}}]},
		{"text":"edited answer"}]}}`)
	w := newWorld(t)
	p := w.start(options{engine: e, planner: waitingPlanner()})
	replace := func(userID, convID, turnID, message string) (string, error) {
		return p.startTurn(t, chat.TurnRequest{UserID: userID, ConversationID: convID, Message: message, Replaces: turnID})
	}

	first := w.mustStart(p, w.convID, "Find kinases")
	w.waitEnd(w.convID, first)

	// Regenerate: no message and no mode, both the replaced turn's.
	second, err := replace(w.userID, w.convID, first, "")
	if err != nil {
		t.Fatalf("regenerate: %v", err)
	}
	if tr := w.waitEnd(w.convID, second); tr.Status != event.TurnCompleted || tr.Mode != chat.ModePlan {
		t.Errorf("regenerated turn = %+v, want a completed plan turn", tr)
	}
	recs := w.checkLog(w.convID)
	if start := decode[*event.TurnStart](t, recs, second, "turn_start"); start.ReplacesTurnID != first || start.Message != "Find kinases" || start.Mode != chat.ModePlan {
		t.Errorf("regenerated turn_start = %+v, want Find kinases again, replacing %s", start, first)
	}
	reqs := e.Requests()
	if got := userTexts(reqs[len(reqs)-1].Messages); !slices.Equal(got, []string{"user: Find kinases"}) {
		t.Errorf("the regenerated turn's model saw %q, want the request once and no replaced answer", got)
	}

	// Only the latest turn, and only once it ended.
	if _, err := replace(w.userID, w.convID, first, "older"); !isReplaceError(err) {
		t.Errorf("replacing an older turn: err = %v, want a ReplaceError", err)
	}
	third, err := replace(w.userID, w.convID, second, "Find phosphatases")
	if err != nil {
		t.Fatalf("edit: %v", err)
	}
	w.waitFor(w.convID, "tool_call_start")
	if _, err := replace(w.userID, w.convID, third, ""); !errors.Is(err, chat.ErrTurnRunning) {
		t.Errorf("replacing a running turn: err = %v, want ErrTurnRunning", err)
	}
	if err := p.Cancel(t.Context(), w.userID, w.convID, third); err != nil {
		t.Fatal(err)
	}
	w.waitEnd(w.convID, third)

	// A stopped edit is edited again; the model sees only the new text.
	fourth, err := replace(w.userID, w.convID, third, "Find phosphatases of P. falciparum")
	if err != nil {
		t.Fatalf("edit again: %v", err)
	}
	if tr := w.waitEnd(w.convID, fourth); tr.Status != event.TurnCompleted {
		t.Errorf("edited turn ended %s (%s)", tr.Status, tr.Error)
	}
	reqs = e.Requests()
	if got := userTexts(reqs[len(reqs)-1].Messages); !slices.Equal(got, []string{"user: Find phosphatases of P. falciparum"}) {
		t.Errorf("the edited turn's model saw %q, want only the edited message", got)
	}
	recs = w.checkLog(w.convID)
	if start := decode[*event.TurnStart](t, recs, fourth, "turn_start"); start.ReplacesTurnID != third {
		t.Errorf("edited turn_start = %+v, want it to replace %s", start, third)
	}

	// Nothing was deleted: every turn's messages are stored.
	msgs, err := w.db.Messages(t.Context(), w.userID, w.convID)
	if err != nil {
		t.Fatal(err)
	}
	var users int
	for _, m := range msgs {
		if m.Role == store.RoleUser {
			users++
		}
	}
	if users != 4 {
		t.Errorf("%d user messages stored, want 4 (one per turn)", users)
	}

	// A conversation without turns has nothing to replace; another user's
	// conversation is not found, whatever the request holds.
	if _, err := replace(w.userID, w.conversation(), first, ""); !isReplaceError(err) {
		t.Errorf("a conversation without turns: err = %v, want a ReplaceError", err)
	}
	stranger, err := w.db.CreateUser(t.Context(), "eve@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replace(stranger.ID, w.convID, fourth, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another user's conversation: err = %v, want store.ErrNotFound", err)
	}
}

func isReplaceError(err error) bool {
	_, ok := errors.AsType[*chat.ReplaceError](err)
	return ok
}

// userTexts lists the text messages of a request as "role: text".
func userTexts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Text != "" {
			out = append(out, string(m.Role)+": "+m.Text)
		}
	}
	return out
}
