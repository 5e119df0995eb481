package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"strategist/internal/event"
	"strategist/web"
	"strategist/web/view"
)

// now is the clock of every rendering in these tests, so running timers
// read the same in a page and in a fragment.
var now = time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)

func readRecorded(t *testing.T, name string) []event.Record {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []event.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var r event.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// harness draws pages and fragments the way the server does, with a fixed
// clock and token.
type harness struct {
	t  *testing.T
	md *web.Markdown
}

func newHarness(t *testing.T) *harness { return &harness{t: t, md: web.NewMarkdown()} }

func (h *harness) start() *view.Conversation {
	return view.New(view.Start{ID: "c1", Title: "Replication <or> repair", SiteID: "plasmodb", Mode: "plan", Model: "offline"})
}

func (h *harness) page(c *view.Conversation) *web.ConversationPage {
	return &web.ConversationPage{
		Conv: c, CSRFToken: "tok", Now: now, MD: h.md,
		Models: []web.ModelOption{{ID: "offline", Name: "Offline", Default: true}, {ID: "scripted:x.json", Name: "Scripted"}},
		Model:  "offline",
	}
}

func (h *harness) fold(recs []event.Record) *view.Conversation {
	h.t.Helper()
	c := h.start()
	for _, r := range recs {
		if _, err := c.Apply(r); err != nil {
			h.t.Fatal(err)
		}
	}
	return c
}

// render draws the whole conversation page.
func (h *harness) render(c *view.Conversation) *html.Node {
	h.t.Helper()
	var buf bytes.Buffer
	if err := web.ConversationView(web.Page{Title: "t", CSRFToken: "tok"}, h.page(c)).Render(context.Background(), &buf); err != nil {
		h.t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		h.t.Fatal(err)
	}
	return doc
}

// fragments folds one record into c and draws what it changed.
func (h *harness) fragments(c *view.Conversation, r event.Record) string {
	h.t.Helper()
	changes, err := c.Apply(r)
	if err != nil {
		h.t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, ch := range changes {
		if err := web.Fragment(h.page(c), ch).Render(context.Background(), &buf); err != nil {
			h.t.Fatal(err)
		}
	}
	return buf.String()
}

// swapOOB applies a fragment to a document as htmx 2 does for the swaps
// the stream uses: hx-swap-oob="true" replaces the element with the same
// id; "beforeend:#id" appends the element's children to that element.
func swapOOB(t *testing.T, doc *html.Node, fragment string) {
	t.Helper()
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(fragment), body)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Type != html.ElementNode {
			if n.Type == html.TextNode && strings.TrimSpace(n.Data) == "" {
				continue
			}
			t.Fatalf("fragment has top-level content that is not an out-of-band element: %q", n.Data)
		}
		spec, ok := attr(n, "hx-swap-oob")
		if !ok {
			t.Fatalf("top-level <%s> without hx-swap-oob in %q", n.Data, fragment)
		}
		removeAttr(n, "hx-swap-oob")
		switch {
		case spec == "true":
			id, _ := attr(n, "id")
			target := byID(doc, id)
			if target == nil {
				t.Fatalf("oob target #%s not on the page", id)
			}
			target.Parent.InsertBefore(n, target)
			target.Parent.RemoveChild(target)
		case strings.HasPrefix(spec, "beforeend:#"):
			target := byID(doc, strings.TrimPrefix(spec, "beforeend:#"))
			if target == nil {
				t.Fatalf("oob target %s not on the page", spec)
			}
			for c := n.FirstChild; c != nil; {
				next := c.NextSibling
				n.RemoveChild(c)
				target.AppendChild(c)
				c = next
			}
		default:
			t.Fatalf("unexpected hx-swap-oob %q", spec)
		}
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func removeAttr(n *html.Node, key string) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Key != key {
			out = append(out, a)
		}
	}
	n.Attr = out
}

func byID(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode {
		if v, ok := attr(n, "id"); ok && v == id {
			return n
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := byID(c, id); f != nil {
			return f
		}
	}
	return nil
}

// shown serialises what the stream keeps up to date: the page's
// #convo without the stream element itself (its resume point is the
// page's N) and without the composer's disabled state, which the page's
// script sets from #stop-form's data-running.
func shown(t *testing.T, doc *html.Node) string {
	t.Helper()
	convo := byID(doc, "convo")
	if convo == nil {
		t.Fatal("no #convo")
	}
	clone := cloneNode(convo)
	if live := byID(clone, "live"); live != nil {
		live.Parent.RemoveChild(live)
	}
	if f := byID(clone, "composer-fields"); f != nil {
		removeAttr(f, "disabled")
	}
	var buf bytes.Buffer
	if err := html.Render(&buf, clone); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func cloneNode(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: append([]html.Attribute{}, n.Attr...)}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		c.AppendChild(cloneNode(k))
	}
	return c
}

// TestPagePlusFragments is the contract between the page and its stream:
// the page drawn after event N, with the fragments of event N+1 swapped in,
// shows what the page drawn after event N+1 shows, for every N of recorded
// conversations; by induction, the page at N plus the fragments after N is
// the page at M for any M. It is also checked in one go from the empty page
// to the last event.
func TestPagePlusFragments(t *testing.T) {
	logs := map[string]func(t *testing.T) []event.Record{
		"recorded.jsonl":           func(t *testing.T) []event.Record { return readRecorded(t, "recorded.jsonl") },
		"offline_acceptance.jsonl": func(t *testing.T) []event.Record { return readRecorded(t, "offline_acceptance.jsonl") },
		// Turns fold as later ones start.
		"five long turns": func(t *testing.T) []event.Record { return longConversation(t, 5) },
		// Replaced turns fold as their replacement starts.
		"replaced turns": func(t *testing.T) []event.Record { return recordsOf(t, replacedTurns()) },
	}
	for name, records := range logs {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			recs := records(t)
			live := h.start()
			doc := h.render(live)
			whole := h.render(h.start())
			for i, r := range recs {
				frag := h.fragments(live, r)
				swapOOB(t, doc, frag)
				swapOOB(t, whole, frag)
				want := h.render(h.fold(recs[:i+1]))
				if diff := cmp.Diff(shown(t, want), shown(t, doc)); diff != "" {
					t.Fatalf("after event %d (%s), page(%d)+fragments differs from page(%d) (-page +stream):\n%s", r.Seq, r.Type, r.Seq-1, r.Seq, diff)
				}
				// Continue from the freshly drawn page, as a reload would.
				doc = want
			}
			if diff := cmp.Diff(shown(t, h.render(h.fold(recs))), shown(t, whole)); diff != "" {
				t.Errorf("empty page + every fragment differs from the last page (-page +stream):\n%s", diff)
			}
		})
	}
}
