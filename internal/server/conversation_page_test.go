package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
)

// TestFoldedTurnAndToolCallPages: an older turn is a summary line on the
// page, and its address draws it whole (a fragment for htmx, a page for a
// plain browser); so do an older artifact's; a tool card's address draws
// its arguments and result. All are the owner's only.
func TestFoldedTurnAndToolCallPages(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := e.conversation(ada, "Ada's")
	turns := []string{"44444444-4444-4444-4444-444444444441", "44444444-4444-4444-4444-444444444442", "44444444-4444-4444-4444-444444444443"}
	for i, id := range turns {
		tb := event.Base{TurnID: id}
		appendEvents(t, e.db, conv.ID,
			&event.TurnStart{Base: tb, Mode: "plan", Model: "offline", Message: "question <" + strconv.Itoa(i) + ">"},
			&event.ToolCallStart{Base: tb, CallID: "k", Name: "search_for_searches", Args: json.RawMessage(`{"query":"kinase"}`)},
			&event.ToolCallEnd{Base: tb, CallID: "k", Name: "search_for_searches", OK: true, Result: json.RawMessage(`{"searches":["GenesByText"]}`), DurationMs: 5},
			&event.ArtifactSaved{Base: tb, Artifact: event.Artifact{ID: "66666666-6666-6666-6666-66666666666" + strconv.Itoa(i), Kind: "planning",
				Title: "Notes " + strconv.Itoa(i), SummaryMarkdown: "kinase notes *" + strconv.Itoa(i) + "*", Version: 1}},
			&event.AssistantMessage{Base: tb, MessageID: "m" + strconv.Itoa(i), Content: "answer **" + strconv.Itoa(i) + "**"},
			&event.TurnEnd{Base: tb, Status: "completed", DurationMs: 10},
		)
	}
	get := func(b browser, path string, htmx bool) response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(b.cookie)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		return e.send(req)
	}
	base := "/conversations/" + conv.ID

	d := doc(t, get(ada, base, false))
	if diff := cmp.Diff([]string{turns[0]}, attrsOf(testid(d, "folded-turn"), "data-turn-id")); diff != "" {
		t.Errorf("folded turns (-want +got):\n%s", diff)
	}
	if got := testid(d, "turn-summary").AttrOr("data-load", ""); got != base+"/turns/"+turns[0] {
		t.Errorf("the summary line loads %q", got)
	}
	cards := testid(d, "tool-call")
	if cards.Length() != 2 || strings.Contains(cards.Text(), "kinase") {
		t.Errorf("%d tool cards on the page, text %q; want 2 without their bodies", cards.Length(), cards.Text())
	}

	r := get(ada, base+"/turns/"+turns[0], true)
	f := doc(t, r)
	if r.status != http.StatusOK || f.Find("header.top").Length() != 0 || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("htmx turn = %d (Cache-Control %q); want a fragment", r.status, r.header.Get("Cache-Control"))
	}
	var said []string
	testid(f, "message-text").Each(func(_ int, m *goquery.Selection) { said = append(said, strings.TrimSpace(m.Text())) })
	if got := strings.Join(said, " | "); got != "question <0> | answer 0" {
		t.Errorf("turn fragment messages = %q", got)
	}
	key, _ := testid(f, "tool-call").Attr("data-load")
	if !strings.HasPrefix(key, base+"/tool-calls/") {
		t.Fatalf("tool card loads %q", key)
	}
	if r := get(ada, base+"/turns/"+turns[0], false); r.status != http.StatusOK || doc(t, r).Find("header.top").Length() != 1 || testid(doc(t, r), "message").Length() != 2 {
		t.Errorf("plain turn = %d; want a page with the turn", r.status)
	}

	r = get(ada, key, true)
	if b := doc(t, r); r.status != http.StatusOK || !strings.Contains(b.Find("pre").Text(), `"query": "kinase"`) || !strings.Contains(b.Text(), "GenesByText") {
		t.Errorf("tool call body = %d %s", r.status, r.body)
	}
	if r := get(ada, key, false); r.status != http.StatusOK || doc(t, r).Find("header.top").Length() != 1 {
		t.Errorf("plain tool call = %d; want a page", r.status)
	}

	// The oldest of three artifacts is behind the panel's line of older
	// ones, which loads its title line; its address draws it.
	if got := testid(d, "older-artifacts").AttrOr("data-load", ""); got != base+"/artifacts" {
		t.Errorf("the older artifacts load from %q", got)
	}
	if strings.Contains(testid(d, "artifacts").Text(), "kinase notes 0") {
		t.Error("the folded artifact's notes are on the page")
	}
	r = get(ada, base+"/artifacts", true)
	art := testid(doc(t, r), "artifact-summary")
	if r.status != http.StatusOK || art.Length() != 1 || art.AttrOr("data-load", "") != base+"/artifacts/66666666-6666-6666-6666-666666666660" {
		t.Fatalf("older artifacts = %d: %d lines, the first loading %q", r.status, art.Length(), art.AttrOr("data-load", ""))
	}
	if r := get(ada, base+"/artifacts", false); r.status != http.StatusOK || !strings.Contains(doc(t, r).Find("em").Text(), "0") {
		t.Errorf("plain older artifacts = %d; want a page with them drawn whole", r.status)
	}
	r = get(ada, art.AttrOr("data-load", ""), true)
	if r.status != http.StatusOK || !strings.Contains(doc(t, r).Find("em").Text(), "0") || doc(t, r).Find("header.top").Length() != 0 {
		t.Errorf("htmx artifact = %d %s", r.status, r.body)
	}
	if r := get(ada, art.AttrOr("data-load", ""), false); r.status != http.StatusOK || doc(t, r).Find("header.top").Length() != 1 {
		t.Errorf("plain artifact = %d; want a page", r.status)
	}

	for _, tc := range []struct {
		name string
		who  browser
		path string
		want int
	}{
		{"another user's turn", eve, base + "/turns/" + turns[0], http.StatusNotFound},
		{"another user's tool call", eve, key, http.StatusNotFound},
		{"a turn of no conversation", ada, base + "/turns/44444444-4444-4444-4444-444444444449", http.StatusNotFound},
		{"a turn id that is not a UUID", ada, base + "/turns/t1", http.StatusBadRequest},
		{"an event that is no tool call", ada, base + "/tool-calls/1", http.StatusNotFound},
		{"a tool call that is not a number", ada, base + "/tool-calls/x", http.StatusBadRequest},
		{"another user's older artifacts", eve, base + "/artifacts", http.StatusNotFound},
		{"another user's artifact", eve, base + "/artifacts/66666666-6666-6666-6666-666666666660", http.StatusNotFound},
		{"an artifact of no conversation", ada, base + "/artifacts/66666666-6666-6666-6666-666666666669", http.StatusNotFound},
		{"an artifact id that is not a UUID", ada, base + "/artifacts/a1", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := get(tc.who, tc.path, true)
			if r.status != tc.want {
				t.Errorf("%s = %d, want %d", tc.path, r.status, tc.want)
			}
			if strings.Contains(string(r.body), "kinase") || strings.Contains(string(r.body), "question") {
				t.Errorf("the refusal shows the conversation: %s", r.body)
			}
		})
	}
}

func attrsOf(s *goquery.Selection, name string) []string {
	var out []string
	s.Each(func(_ int, e *goquery.Selection) { out = append(out, e.AttrOr(name, "")) })
	return out
}

// TestOpeningAnOldTurnOfALongLog: a turn and a tool call are drawn from
// the log up to where they ended, also when the log goes on for more than
// one read after them.
func TestOpeningAnOldTurnOfALongLog(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada := e.signIn("ada@example.org")
	conv := e.conversation(ada, "Long")
	first, second := event.Base{TurnID: "44444444-4444-4444-4444-444444444441"}, event.Base{TurnID: "44444444-4444-4444-4444-444444444442"}
	appendEvents(t, e.db, conv.ID,
		&event.TurnStart{Base: first, Mode: "plan", Message: "first question"},
		&event.ToolCallStart{Base: first, CallID: "k", Name: "search_for_searches", Args: json.RawMessage(`{"query":"kinase"}`)},
		&event.ToolCallEnd{Base: first, CallID: "k", Name: "search_for_searches", OK: true, Result: json.RawMessage(`{"n":1}`)},
		&event.AssistantMessage{Base: first, MessageID: "m1", Content: "first answer"},
		&event.TurnEnd{Base: first, Status: "completed"},
		&event.TurnStart{Base: second, Mode: "plan", Message: "second question"},
	)
	var deltas []event.Event
	for range 1200 {
		deltas = append(deltas, &event.AssistantDelta{Base: second, MessageID: "m2", Delta: "x"})
	}
	appendEvents(t, e.db, conv.ID, deltas...)
	get := func(path string) response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(ada.cookie)
		req.Header.Set("HX-Request", "true")
		return e.send(req)
	}
	base := "/conversations/" + conv.ID
	r := get(base + "/turns/" + first.TurnID)
	if d := doc(t, r); r.status != http.StatusOK || !strings.Contains(d.Text(), "first answer") || testid(d, "turn-usage").Length() != 1 {
		t.Errorf("first turn = %d %s", r.status, r.body)
	}
	if r := get(base + "/tool-calls/2"); r.status != http.StatusOK || !strings.Contains(string(r.body), "kinase") {
		t.Errorf("first turn's call = %d %s", r.status, r.body)
	}
	r = get(base + "/turns/" + second.TurnID)
	if d := doc(t, r); r.status != http.StatusOK || len(strings.TrimSpace(testid(d, "message-text").Last().Text())) != 1200 {
		t.Errorf("the running turn = %d, its text %d characters, want 1200", r.status, len(strings.TrimSpace(testid(d, "message-text").Last().Text())))
	}
}
