package server

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/eventlog"
	"strategist/web"
	"strategist/web/view"
)

// streamPage is GET /conversations/{id}/stream?after=N: the page's live
// updates, the projection of the same event log as HTML. It folds the
// events up to N (the page was drawn from them), then sends, for each later
// event, the fragments of what it changed as out-of-band swaps, with the
// event's sequence number as the SSE id. Its rules are the JSON stream's:
// ownership is checked before any header is written, Last-Event-ID (a
// browser reconnecting) wins over ?after=, a comment line after KeepAlive
// of silence, a client that cannot take a burst of frames within
// WriteTimeout is dropped, and the stream ends when the server shuts down.
func (s *Server) streamPage(c echo.Context) error {
	after, err := resumePoint(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.streamContext(c)
	defer cancel()
	uid, id := userID(c), c.Param("id")
	conv, err := s.cfg.Store.Conversation(ctx, uid, id)
	if err != nil {
		return err
	}
	proj, err := s.project(ctx, uid, conv, clampResume(after, conv.LastEventSeq))
	if err != nil {
		return err
	}
	page := s.conversationView(c, proj)
	var buf bytes.Buffer
	return s.serveStream(ctx, c, proj.Seq, "page stream", func(w io.Writer, p *eventlog.Published) error {
		buf.Reset()
		page.Now = time.Now()
		changes := s.apply(proj, p.Record)
		if slices.ContainsFunc(changes, func(ch view.Change) bool { _, ok := ch.(view.StrategyChanged); return ok }) {
			page.Overlaps = s.overlaps(ctx, proj)
		}
		if err := renderChanges(ctx, &buf, page, changes); err != nil {
			return err
		}
		_, err := io.WriteString(w, sseFrame(p.Seq, buf.String()))
		return err
	})
}

// renderChanges draws the fragments of an event's changes into buf.
func renderChanges(ctx context.Context, buf *bytes.Buffer, page *web.ConversationPage, changes []view.Change) error {
	for _, ch := range changes {
		if err := web.Fragment(page, ch).Render(ctx, buf); err != nil {
			return err
		}
	}
	return nil
}

// sseFrame is one SSE message: the id, then the HTML as data lines (a
// browser joins them with newlines). An event that changed nothing shown is
// a frame with only its id, which moves the client's Last-Event-ID on.
// Carriage returns would end an SSE line, so they become newlines.
func sseFrame(seq int64, html string) string {
	var b strings.Builder
	b.WriteString("id: ")
	b.WriteString(strconv.FormatInt(seq, 10))
	b.WriteByte('\n')
	if html != "" {
		html = strings.ReplaceAll(html, "\r\n", "\n")
		html = strings.ReplaceAll(html, "\r", "\n")
		for line := range strings.SplitSeq(html, "\n") {
			b.WriteString("data: ")
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
	return b.String()
}
