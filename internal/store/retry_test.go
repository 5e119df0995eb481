package store_test

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/migrations"
)

// proxy stands between the store and PostgreSQL so that a test can
// restart the database as its clients see it: every connection cut, and
// new ones refused (accepted and closed at once, as a server that is
// starting up does) for a while.
type proxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu        sync.Mutex
	conns     map[net.Conn]bool
	downUntil time.Time
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, target: target, conns: map[net.Conn]bool{}}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		_ = ln.Close()
		p.cut()
		p.wg.Wait()
	})
	return p
}

// url is dbURL through the proxy.
func (p *proxy) url(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := time.Now().Before(p.downUntil)
		p.mu.Unlock()
		if down {
			_ = c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = true, true
		p.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			_ = dst.Close()
			_ = src.Close()
		}
		p.wg.Go(func() { pipe(s, c) })
		p.wg.Go(func() { pipe(c, s) })
	}
}

// cut closes every connection through the proxy.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// restart cuts every connection and refuses new ones for d.
func (p *proxy) restart(d time.Duration) {
	p.mu.Lock()
	p.downUntil = time.Now().Add(d)
	p.mu.Unlock()
	p.cut()
}

// TestRetriesThroughARestart: the database restarts (every connection
// cut, none to be had for a second) under a read, a transaction and a
// turn's end: each waits and succeeds once the database is back, and the
// transaction writes once. A database away longer than the store's bound
// fails the call, with an error Unavailable recognises, at the bound.
func TestRetriesThroughARestart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dbURL := pgtest.NewURL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	px := newProxy(t, u.Host)
	db, err := store.Open(ctx, px.url(dbURL), migrations.FS, store.WithRetryFor(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ada := mustUser(t, db, "ada@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	turnID := uuid.NewString()
	if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: turnID, Mode: "plan",
		Model: "offline", Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "kinases"}}); err != nil {
		t.Fatal(err)
	}

	px.restart(time.Second)
	if ms, err := db.Messages(ctx, ada.ID, conv.ID); err != nil || len(ms) != 1 {
		t.Errorf("Messages through a restart = %d messages, %v; want the one", len(ms), err)
	}
	px.restart(time.Second)
	if err := db.AddMessages(ctx, conv.ID, turnID, []store.NewMessage{{Role: "assistant", Content: "Kinases, then."}}); err != nil {
		t.Errorf("AddMessages through a restart = %v", err)
	}
	if ms, err := db.Messages(ctx, ada.ID, conv.ID); err != nil || len(ms) != 2 {
		t.Errorf("after AddMessages: %d messages, %v; want 2", len(ms), err)
	}
	px.restart(time.Second)
	if _, err := db.EndTurnTx(ctx, store.EndTurn{TurnID: turnID, Status: "completed", Usage: []byte(`{}`), Origin: "test",
		Events: []store.NewEvent{{ConversationID: conv.ID, TurnID: turnID, Type: "turn_end", Payload: []byte(`{"status":"completed"}`)}}}); err != nil {
		t.Errorf("EndTurnTx through a restart = %v", err)
	}

	short, err := store.Open(ctx, px.url(dbURL), migrations.FS, store.WithRetryFor(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	px.restart(5 * time.Second)
	start := time.Now()
	_, err = short.Messages(ctx, ada.ID, conv.ID)
	if !store.Unavailable(err) {
		t.Errorf("Messages with the database away past the bound = %v, want an error Unavailable recognises", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("gave up after %s, want about the bound (0.5 s)", took)
	}
}
