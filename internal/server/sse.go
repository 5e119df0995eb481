package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/event"
)

// streamEvents is GET /conversations/{id}/events: the conversation's events
// after ?after=N (or the Last-Event-ID header of a reconnecting client) and
// then live ones, as Server-Sent Events whose id is the event's sequence
// number. A comment line every KeepAlive keeps proxies from closing an idle
// stream. A client too slow to keep up is disconnected; it reconnects and
// replays from the log.
func (s *Server) streamEvents(c echo.Context) error {
	after, err := resumePoint(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	// Shutdown ends open streams; clients reconnect to another replica.
	stop := context.AfterFunc(s.stopping, cancel)
	defer stop()
	if _, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id")); err != nil {
		return err
	}

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
	write := func(frame string) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := fmt.Fprint(w, frame); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := write(": stream of conversation " + c.Param("id") + "\nretry: 2000\n\n"); err != nil {
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
				if !errors.Is(it.err, event.ErrSlowSubscriber) && ctx.Err() == nil {
					s.log.Warn("event stream ended", "conversation_id", c.Param("id"), "error", it.err)
				}
				return nil
			}
			frame := "id: " + strconv.FormatInt(it.rec.Seq, 10) + "\nevent: " + it.rec.Type + "\ndata: " + string(it.rec.Payload) + "\n\n"
			if write(frame) != nil {
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
