package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/web"
	"strategist/web/view"
)

// longConversation is turns turns of a chatty conversation: each a user
// message, three tool calls, an assistant answer streamed in 40 deltas of
// markdown, usage and the end; 2 messages per turn.
func longConversation(t testing.TB, turns int) []event.Record {
	l := &log{}
	for i := range turns {
		tb := b(fmt.Sprintf("t%d", i))
		l.add(&event.TurnStart{Base: tb, Mode: "plan", Model: "offline", UserMessageID: fmt.Sprintf("u%d", i), Message: "Which genes are involved in DNA repair and expressed in the blood stages? Turn " + fmt.Sprint(i)})
		for k := range 3 {
			id := fmt.Sprintf("k%d-%d", i, k)
			l.add(&event.ToolCallStart{Base: tb, CallID: id, Name: "search_for_searches", Args: json.RawMessage(`{"query":"DNA repair","record_type":"transcript"}`)},
				&event.ToolCallEnd{Base: tb, CallID: id, Name: "search_for_searches", OK: true, DurationMs: 120,
					Result: json.RawMessage(`{"searches":[{"name":"GenesByGoTerm","displayName":"GO term","score":0.9},{"name":"GenesByText","displayName":"Text","score":0.5}]}`)})
		}
		msg := fmt.Sprintf("m%d", i)
		var full strings.Builder
		for d := range 40 {
			piece := fmt.Sprintf("word%d **bold** ", d)
			full.WriteString(piece)
			l.add(&event.AssistantDelta{Base: tb, MessageID: msg, Delta: piece})
		}
		l.add(&event.AssistantMessage{Base: tb, MessageID: msg, Content: full.String()},
			&event.Usage{Base: tb, Scope: "main", Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: 100, TotalTokens: 1100}},
			&event.TurnEnd{Base: tb, Status: "completed", DurationMs: 3000, Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: 100, TotalTokens: 1100}})
	}
	return recordsOf(t, l.evs)
}

func recordsOf(t testing.TB, evs []event.Event) []event.Record {
	recs := make([]event.Record, 0, len(evs))
	for i, e := range evs {
		name, payload, err := event.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, event.Record{ConversationID: "c1", Seq: int64(i + 1), TurnID: e.Turn(), Type: name, Payload: payload, CreatedAt: now})
	}
	return recs
}

// countingWriter counts what a page weighs.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// BenchmarkConversationPage is the server's work for one page load of a
// 200-message conversation (100 turns, 5,000 events): fold the log, draw
// the page. It reports the page's size.
func BenchmarkConversationPage(b *testing.B) {
	recs := longConversation(b, 100)
	md := web.NewMarkdown()
	var size int
	for b.Loop() {
		c := view.New(view.Start{ID: "c1", Title: "Long", Mode: "plan"})
		for _, r := range recs {
			if _, err := c.Apply(r); err != nil {
				b.Fatal(err)
			}
		}
		w := &countingWriter{}
		p := &web.ConversationPage{Conv: c, CSRFToken: "tok", Now: now, MD: md, Models: []web.ModelOption{{ID: "offline", Name: "Offline"}}, Model: "offline"}
		if err := web.ConversationView(web.Page{Title: "Long"}, p).Render(context.Background(), w); err != nil {
			b.Fatal(err)
		}
		size = w.n
	}
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(float64(len(recs)), "events")
}

// BenchmarkFold is the fold alone over the same log (what a stream does
// before it sends its first fragment).
func BenchmarkFold(b *testing.B) {
	recs := longConversation(b, 100)
	for b.Loop() {
		c := view.New(view.Start{ID: "c1"})
		for _, r := range recs {
			if _, err := c.Apply(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDeltaFragment is the stream's work per streamed token: fold one
// delta and draw its fragment.
func BenchmarkDeltaFragment(b *testing.B) {
	recs := longConversation(b, 1)
	c := view.New(view.Start{ID: "c1"})
	for _, r := range recs[:8] { // up to and including the first delta
		if _, err := c.Apply(r); err != nil {
			b.Fatal(err)
		}
	}
	p := &web.ConversationPage{Conv: c, Now: now, MD: web.NewMarkdown()}
	delta := recs[8]
	seq := delta.Seq
	for b.Loop() {
		seq++
		delta.Seq = seq
		changes, err := c.Apply(delta)
		if err != nil {
			b.Fatal(err)
		}
		for _, ch := range changes {
			if err := web.Fragment(p, ch).Render(context.Background(), io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestLongConversationRenders(t *testing.T) {
	h := newHarness(t)
	c := h.fold(longConversation(t, 100))
	doc := query(t, web.ConversationView(web.Page{Title: "t"}, h.page(c)))
	// The latest view.OpenTurns turns are drawn whole, the older ones folded
	// into their summary lines.
	if n := tid(doc.Selection, "message").Length(); n != 2*view.OpenTurns {
		t.Errorf("%d messages, want %d", n, 2*view.OpenTurns)
	}
	if n := tid(doc.Selection, "folded-turn").Length(); n != 100-view.OpenTurns {
		t.Errorf("%d folded turns, want %d", n, 100-view.OpenTurns)
	}
	if n := doc.Find(".turn").Length(); n != 100 {
		t.Errorf("%d turns, want 100", n)
	}
	if n := tid(doc.Selection, "tool-body").Children().Length(); n != 0 {
		t.Errorf("tool cards carry %d body elements, want none until opened", n)
	}
}
