package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/store"
)

// listener runs Listen in a goroutine the test owns and reports what it
// sees on channels.
type listener struct {
	notes    chan string // "channel payload"
	connects chan error  // onConnect's argument
	cancel   context.CancelFunc
	done     chan error
}

func startListener(t *testing.T, db *store.DB, channels ...string) *listener {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{notes: make(chan string, 100), connects: make(chan error, 10), cancel: cancel, done: make(chan error, 1)}
	go func() {
		l.done <- db.Listen(ctx, channels,
			func(channel, payload string) { l.notes <- channel + " " + payload },
			func(lost error) { l.connects <- lost })
	}()
	t.Cleanup(func() {
		l.cancel()
		if err := <-l.done; err != nil {
			t.Errorf("Listen returned %v after its context ended, want nil", err)
		}
	})
	select {
	case err := <-l.connects:
		if err != nil {
			t.Fatalf("first onConnect got %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Listen did not connect")
	}
	return l
}

func (l *listener) next(t *testing.T) string {
	t.Helper()
	select {
	case n := <-l.notes:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no notification")
		return ""
	}
}

func TestListenReceivesAppendNotifications(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	a, b := mustConversation(t, db, ada.ID), mustConversation(t, db, ada.ID)
	l := startListener(t, db, store.EventsChannel, "strategist_cancel")

	if _, err := db.AppendEvents(ctx, "proc-1", []store.NewEvent{
		newEvent(a.ID, "", "usage", `{}`), newEvent(a.ID, "", "usage", `{}`), newEvent(b.ID, "", "usage", `{}`),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendEvents(ctx, "proc-2", []store.NewEvent{newEvent(a.ID, "", "usage", `{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Notify(ctx, "strategist_cancel", "turn-42"); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range 4 {
		got[l.next(t)] = true
	}
	want := map[string]bool{
		fmt.Sprintf("%s proc-1|%s|1|2", store.EventsChannel, a.ID): true,
		fmt.Sprintf("%s proc-1|%s|1|1", store.EventsChannel, b.ID): true,
		fmt.Sprintf("%s proc-2|%s|3|3", store.EventsChannel, a.ID): true,
		"strategist_cancel turn-42":                                true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications mismatch (-want +got):\n%s", diff)
	}
}

// TestListenReconnects kills the listening connection from the server side:
// Listen reconnects, says so through onConnect with the error that ended
// the previous connection, and notifications flow again.
func TestListenReconnects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	l := startListener(t, db, "strategist_test")

	if err := db.Notify(ctx, "strategist_test", "before"); err != nil {
		t.Fatal(err)
	}
	if n := l.next(t); n != "strategist_test before" {
		t.Fatalf("got %q", n)
	}
	var killed int
	if err := db.Pool().QueryRow(ctx,
		"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
		store.ListenerAppName).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminated %d listener connections (%v), want 1", killed, err)
	}
	select {
	case lost := <-l.connects:
		if lost == nil {
			t.Error("onConnect after a reconnect got nil, want the error that ended the connection")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Listen did not reconnect")
	}
	if err := db.Notify(ctx, "strategist_test", "after"); err != nil {
		t.Fatal(err)
	}
	if n := l.next(t); n != "strategist_test after" {
		t.Fatalf("got %q", n)
	}
}

func TestListenStopsWithContext(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var err error
	wg.Go(func() {
		err = db.Listen(ctx, []string{"strategist_test"}, func(string, string) {}, func(error) { cancel() })
	})
	wg.Wait()
	if err != nil {
		t.Errorf("Listen() = %v after cancel, want nil", err)
	}
	if err := db.Listen(context.Background(), nil, func(string, string) {}, nil); err == nil {
		t.Error("Listen without channels succeeded, want an error")
	}
}
