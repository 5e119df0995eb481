package chat_test

import (
	"errors"
	"sync"
	"testing"

	"strategist/internal/chat"
	"strategist/internal/event"
)

// TestStartRateIsPerUser: a user's starts beyond the burst are refused with
// a BudgetError saying when to retry; another user starts as before.
func TestStartRateIsPerUser(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"}]}}`)
	w := newWorld(t)
	p := w.start(options{engine: e, budget: func(c *chat.Config) { c.TurnRate, c.TurnBurst = 0.001, 2 }})
	for i := range 2 {
		id := w.mustStart(p, w.convID, "question")
		w.waitEnd(w.convID, id)
		_ = i
	}
	_, err := p.startTurn(t, chat.TurnRequest{UserID: w.userID, ConversationID: w.convID, Message: "one more", Mode: chat.ModePlan})
	be, ok := errors.AsType[*chat.BudgetError](err)
	if !ok || be.Running || be.RetryAfter <= 0 || !errors.Is(err, chat.ErrBudget) {
		t.Fatalf("the third start = %v, want a rate BudgetError with a RetryAfter", err)
	}
	// Another user has their own budget.
	eve, err := w.db.CreateUser(t.Context(), "eve@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := w.db.CreateConversation(t.Context(), eve.ID, "plasmodb", "", testModel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.startTurn(t, chat.TurnRequest{UserID: eve.ID, ConversationID: conv.ID, Message: "mine", Mode: chat.ModePlan}); err != nil {
		t.Errorf("another user's start = %v", err)
	}
}

// TestRunningTurnsAreCapped: a user's starts sent at once, each to a
// conversation of its own, start at most MaxRunning turns; the rest are
// refused with a BudgetError, nothing of them written. Once a turn ends,
// a start succeeds again.
func TestRunningTurnsAreCapped(t *testing.T) {
	t.Parallel()
	const slow = `{"text":"slow","latencyMs":600000}`
	e := engine(t, `{"roles":{"planner":[`+slow+`,`+slow+`,`+slow+`,`+slow+`,`+slow+`,`+slow+`,`+slow+`,`+slow+`,`+slow+`,`+slow+`]}}`)
	w := newWorld(t)
	p := w.start(options{engine: e, budget: func(c *chat.Config) { c.TurnRate, c.TurnBurst, c.MaxRunning = 1000, 100, 2 }})
	// One start first, so the rest do not race the service's start.
	convs := []string{w.convID}
	for range 9 {
		convs = append(convs, w.conversation())
	}
	first := w.mustStart(p, convs[0], "first")
	var (
		mu      sync.Mutex
		started = []string{first}
		refused int
	)
	var wg sync.WaitGroup
	for _, conv := range convs[1:] {
		wg.Go(func() {
			id, err := p.StartTurn(t.Context(), chat.TurnRequest{UserID: w.userID, ConversationID: conv, Message: "at once", Mode: chat.ModePlan})
			mu.Lock()
			defer mu.Unlock()
			switch be, ok := errors.AsType[*chat.BudgetError](err); {
			case err == nil:
				started = append(started, id)
			case ok && be.Running && be.Limit == 2:
				refused++
			default:
				t.Errorf("StartTurn = %v, want a start or a running-cap BudgetError", err)
			}
		})
	}
	wg.Wait()
	if len(started) != 2 || refused != 8 {
		t.Fatalf("%d started, %d refused; want 2 and 8", len(started), refused)
	}
	for _, conv := range convs {
		turns, err := w.db.Turns(t.Context(), w.userID, conv)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := w.db.Messages(t.Context(), w.userID, conv)
		if err != nil {
			t.Fatal(err)
		}
		if len(turns) != len(msgs) {
			t.Errorf("conversation %s: %d turns and %d messages: a refused start left a message", conv, len(turns), len(msgs))
		}
	}
	if err := p.Cancel(t.Context(), w.userID, convs[0], first); err != nil {
		t.Fatal(err)
	}
	if tr := w.waitEnd(convs[0], first); tr.Status != event.TurnCancelled {
		t.Fatalf("cancelled turn ended %s", tr.Status)
	}
	var free string
	for _, conv := range convs {
		if turns, _ := w.db.Turns(t.Context(), w.userID, conv); len(turns) == 0 {
			free = conv
			break
		}
	}
	if _, err := p.StartTurn(t.Context(), chat.TurnRequest{UserID: w.userID, ConversationID: free, Message: "now", Mode: chat.ModePlan}); err != nil {
		t.Errorf("a start after a turn ended = %v", err)
	}
}
