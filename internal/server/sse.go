package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/store"
)

// streamEvents is GET /conversations/{id}/events: the conversation's events
// after ?after=N (or the Last-Event-ID header of a reconnecting client) and
// then live ones, as Server-Sent Events whose id is the event's sequence
// number.
func (s *Server) streamEvents(c echo.Context) error {
	after, err := resumePoint(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.streamContext(c)
	defer cancel()
	if _, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id")); err != nil {
		return err
	}
	return s.serveStream(ctx, c, after, "stream", func(rec event.Record) (string, error) {
		return "id: " + strconv.FormatInt(rec.Seq, 10) + "\nevent: " + rec.Type + "\ndata: " + string(rec.Payload) + "\n\n", nil
	})
}

// streamContext is a stream's context: it ends with the request, when the
// server begins shutting down (clients reconnect to another replica), or
// when the session or token that opened it is revoked (EndStreamsOf).
func (s *Server) streamContext(c echo.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.Request().Context())
	stop := context.AfterFunc(s.stopping, cancel)
	forgetCred := s.streams.add(currentIdentity(c).cred, cancel)
	forgetConv := s.streams.add(store.ConversationStreams(c.Param("id")), cancel)
	return ctx, func() { forgetCred(); forgetConv(); stop(); cancel() }
}

// deletedStreamGrace is how long a deleted conversation's streams stay
// open, to deliver the turn_end of the turn the deletion cancelled.
const deletedStreamGrace = time.Second

// EndStreams ends open streams by what store.EndStreamsChannel carries:
// those of a signed-out session or a revoked token (account.CredentialKey;
// the client reconnects and is refused), or, a moment later, those of a
// deleted conversation.
func (s *Server) EndStreams(key string) {
	if strings.HasPrefix(key, store.ConversationStreams("")) {
		time.AfterFunc(deletedStreamGrace, func() { s.streams.end(key) })
		return
	}
	s.streams.end(key)
}

// streamSet tracks open streams by the credential that opened them.
type streamSet struct {
	mu   sync.Mutex
	next int
	by   map[string]map[int]context.CancelFunc
}

func (ss *streamSet) add(cred string, cancel context.CancelFunc) (forget func()) {
	if cred == "" {
		return func() {}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.by == nil {
		ss.by = map[string]map[int]context.CancelFunc{}
	}
	if ss.by[cred] == nil {
		ss.by[cred] = map[int]context.CancelFunc{}
	}
	ss.next++
	id := ss.next
	ss.by[cred][id] = cancel
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		delete(ss.by[cred], id)
		if len(ss.by[cred]) == 0 {
			delete(ss.by, cred)
		}
	}
}

func (ss *streamSet) end(cred string) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, cancel := range ss.by[cred] {
		cancel()
	}
	return len(ss.by[cred])
}

// serveStream follows the caller's conversation from after and writes one
// SSE frame per record, made by frame. The rules every stream shares live
// here: headers are written only now (the caller checked ownership first),
// a comment line every KeepAlive keeps proxies from closing an idle stream,
// a client that cannot take a frame within WriteTimeout is dropped, and a
// client too slow to keep up (the broker drops it) is disconnected; it
// reconnects and replays from the log.
func (s *Server) serveStream(ctx context.Context, c echo.Context, after int64, label string, frame func(event.Record) (string, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	type item struct {
		rec event.Record
		err error
	}
	items := make(chan item)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for rec, err := range s.cfg.Streamer.Stream(ctx, userID(c), c.Param("id"), after) {
			select {
			case items <- item{rec, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() { cancel(); <-done }()

	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	write := func(f string) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := fmt.Fprint(w, f); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := write(": " + label + " of conversation " + c.Param("id") + "\nretry: 2000\n\n"); err != nil {
		return nil
	}
	keepAlive := time.NewTicker(s.cfg.KeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-keepAlive.C:
			if write(": keep-alive\n\n") != nil {
				return nil
			}
		case it := <-items:
			if it.err != nil {
				if !errors.Is(it.err, eventlog.ErrSlowSubscriber) && ctx.Err() == nil {
					s.log.Warn(label+" ended", "conversation_id", c.Param("id"), "error", it.err)
				}
				return nil
			}
			f, err := frame(it.rec)
			if err != nil {
				s.log.Warn("rendering a "+label+" frame", "conversation_id", c.Param("id"), "seq", it.rec.Seq, "error", err)
				return nil
			}
			if write(f) != nil {
				return nil
			}
		}
	}
}

// resumePoint reads where a stream resumes: Last-Event-ID (set by browsers
// when they reconnect) wins over ?after=.
func resumePoint(c echo.Context) (int64, error) {
	raw := c.Request().Header.Get("Last-Event-ID")
	name := "Last-Event-ID"
	if raw == "" {
		raw, name = c.QueryParam("after"), "after"
	}
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest(name + " must be a non-negative event number")
	}
	return n, nil
}
