package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

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
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	return s.serveStream(ctx, c, clampResume(after, conv.LastEventSeq), "stream", func(w io.Writer, p *eventlog.Published) error {
		_, err := w.Write(p.SSE()) // made once per record, shared by every stream
		return err
	})
}

// streamContext is a stream's context: it ends with the request, when the
// server begins shutting down (clients reconnect to another replica), or
// when the session or token that opened it is revoked or its conversation
// deleted (EndStreams).
func (s *Server) streamContext(c echo.Context) (context.Context, context.CancelFunc) {
	return s.conversationStreamContext(c, c.Param("id"))
}

// conversationStreamContext is streamContext for a conversation the
// request does not name in its address (the OpenAI-compatible API's).
func (s *Server) conversationStreamContext(c echo.Context, conversationID string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.Request().Context())
	stop := context.AfterFunc(s.stopping, cancel)
	forgetCred := s.streams.add(currentIdentity(c).cred, cancel)
	forgetConv := s.streams.add(store.ConversationStreams(conversationID), cancel)
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

// streamSet tracks open streams by key: the credential that opened them
// and their conversation (store.ConversationStreams).
type streamSet struct {
	mu   sync.Mutex
	next int
	by   map[string]map[int]context.CancelFunc
}

func (ss *streamSet) add(key string, cancel context.CancelFunc) (forget func()) {
	if key == "" {
		return func() {}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.by == nil {
		ss.by = map[string]map[int]context.CancelFunc{}
	}
	if ss.by[key] == nil {
		ss.by[key] = map[int]context.CancelFunc{}
	}
	ss.next++
	id := ss.next
	ss.by[key][id] = cancel
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		delete(ss.by[key], id)
		if len(ss.by[key]) == 0 {
			delete(ss.by, key)
		}
	}
}

func (ss *streamSet) end(key string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, cancel := range ss.by[key] {
		cancel()
	}
}

// serveStream follows the caller's conversation from after and writes one
// SSE frame per record, made by frame. The rules every stream shares live
// here: headers are written only now (the caller checked ownership first),
// a comment line after KeepAlive without a frame keeps proxies from closing
// an idle stream, a client that cannot take a burst of frames within
// WriteTimeout (at least half of it) is dropped, and a client too slow to
// keep up (the broker drops it) is disconnected; it reconnects and replays
// from the log.
//
// The handler's goroutine does all of it, ranging over the streamer's
// batches: the records published since its last write are written together
// and flushed once, so a burst costs one write to the connection, not one
// per record.
func (s *Server) serveStream(ctx context.Context, c echo.Context, after int64, label string, frame func(io.Writer, *eventlog.Published) error) error {
	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	out := &stickyWriter{w: w}
	flush := func() error {
		return rc.Flush()
	}
	// The write deadline is moved only once half of it has passed: a burst
	// still gets between WriteTimeout/2 and WriteTimeout, and most bursts
	// skip the runtime timer update.
	var deadline time.Time
	arm := func() {
		if now := time.Now(); deadline.Sub(now) < s.cfg.WriteTimeout/2 {
			deadline = now.Add(s.cfg.WriteTimeout)
			_ = rc.SetWriteDeadline(deadline)
		}
	}
	arm()
	if _, err := io.WriteString(w, ": "+label+" of conversation "+c.Param("id")+"\nretry: 2000\n\n"); err != nil || flush() != nil {
		return nil
	}
	for batch, err := range s.cfg.Streamer.Batches(ctx, userID(c), c.Param("id"), after, s.cfg.KeepAlive) {
		if err != nil {
			if !errors.Is(err, eventlog.ErrSlowSubscriber) && ctx.Err() == nil {
				s.log.Warn(label+" ended", "conversation_id", c.Param("id"), "error", err)
			}
			return nil
		}
		arm()
		if len(batch) == 0 {
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || flush() != nil {
				return nil
			}
			continue
		}
		for _, p := range batch {
			if err := frame(out, p); err != nil {
				if out.err == nil && ctx.Err() == nil {
					s.log.Warn("rendering a "+label+" frame", "conversation_id", c.Param("id"), "seq", p.Seq, "error", err)
				}
				return nil
			}
		}
		if out.err != nil || flush() != nil {
			return nil
		}
	}
	return nil
}

// stickyWriter remembers the first write error, so that serveStream can
// tell a client that went away from a frame that failed to render.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (sw *stickyWriter) Write(b []byte) (int, error) {
	if sw.err != nil {
		return 0, sw.err
	}
	n, err := sw.w.Write(b)
	sw.err = err
	return n, err
}

// clampResume is where a stream resumes that was asked to resume after
// event after, of a conversation whose last event is last. A point beyond
// the last event (a client of a restored database, or one that made its
// id up) would wait for sequence numbers the conversation has already
// given or will give below it, and stay silent: the stream starts with the
// last event instead, which also moves the client's Last-Event-ID back.
func clampResume(after, last int64) int64 {
	if after > last {
		return max(last-1, 0)
	}
	return after
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
