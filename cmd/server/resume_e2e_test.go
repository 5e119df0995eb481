package main

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
)

// TestResumeAfterEveryEvent follows a live delegation with a client that
// disconnects after every single event and reconnects with Last-Event-ID,
// and checks that what it pieced together is exactly the uninterrupted
// stream: no event lost, none repeated.
func TestResumeAfterEveryEvent(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "slow_delegation.json"})
	conv := a.newConversation()

	reference := make(chan []event.Record, 1)
	go func() { reference <- a.collect(conv, 0, 120*time.Second, untilTurnEnds(1)) }()
	a.startTurn(conv, "execute", "Build it")

	var hopped []event.Record
	last := int64(0)
	for reconnects := 0; ; reconnects++ {
		if reconnects > 10_000 {
			t.Fatal("the hopping client never saw the turn end")
		}
		rec, ok := oneEvent(t, a, conv, last)
		if !ok {
			continue
		}
		hopped = append(hopped, rec)
		last = rec.Seq
		if rec.Type == "turn_end" {
			break
		}
	}
	ref := <-reference
	eventtest.Check(t, ref)
	if len(hopped) != len(ref) {
		t.Fatalf("resumed stream has %d events, the uninterrupted one %d", len(hopped), len(ref))
	}
	for i := range ref {
		if hopped[i].Seq != ref[i].Seq || hopped[i].Type != ref[i].Type || string(hopped[i].Payload) != string(ref[i].Payload) {
			t.Fatalf("event %d differs: resumed %d %s, uninterrupted %d %s", i, hopped[i].Seq, hopped[i].Type, ref[i].Seq, ref[i].Type)
		}
	}
	if len(ref) < 30 {
		t.Errorf("only %d events: the scenario is too small to test resuming", len(ref))
	}
}

// oneEvent connects with Last-Event-ID set to last, reads one event and
// disconnects. ok is false when no event came before the wait ended.
func oneEvent(t *testing.T, a *testApp, conv string, last int64) (event.Record, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.streamURL(conv), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.Token)
	if last > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream = %d", resp.StatusCode)
	}
	for rec := range readFrames(resp.Body) {
		return rec, true
	}
	return event.Record{}, false
}
