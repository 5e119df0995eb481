package server_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
)

// sseMessage is one message of a page stream: its id and its data lines
// joined as a browser joins them.
type sseMessage struct {
	id   int64
	data string
}

// readStream reads n messages (comment lines skipped) of a page stream and
// then closes it.
func readStream(t *testing.T, e *pageEnv, b browser, path string, header http.Header, n int) (int, string, []sseMessage) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.AddCookie(b.cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, resp.Header.Get("Content-Type"), nil
	}
	var msgs []sseMessage
	var cur sseMessage
	var data []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for len(msgs) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.id != 0 {
				cur.data = strings.Join(data, "\n")
				msgs = append(msgs, cur)
			}
			cur, data = sseMessage{}, nil
		case strings.HasPrefix(line, "id: "):
			cur.id, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry:"), strings.HasPrefix(line, "event: "):
		default:
			t.Fatalf("unexpected stream line %q", line)
		}
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), msgs
}

func TestPageStream(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := e.conversation(ada, "Ada's")
	turn := "44444444-4444-4444-4444-444444444444"
	tb := event.Base{TurnID: turn}
	appendEvents(t, e.db, conv.ID,
		&event.TurnStart{Base: tb, Mode: "plan", Model: "offline", UserMessageID: "55555555-5555-5555-5555-555555555555", Message: "line one\r\nline <two>"},
		&event.AssistantDelta{Base: tb, MessageID: "m1", Delta: "Hel"},
		&event.AssistantDelta{Base: tb, MessageID: "m1", Delta: "lo\nthere"},
		&event.AssistantMessage{Base: tb, MessageID: "m1", Content: "Hello\nthere"},
		&event.TurnEnd{Base: tb, Status: "completed", DurationMs: 10},
	)
	path := "/conversations/" + conv.ID + "/stream"

	status, ctype, msgs := readStream(t, e, ada, path+"?after=0", nil, 5)
	if status != http.StatusOK || ctype != "text/event-stream" {
		t.Fatalf("stream = %d %s", status, ctype)
	}
	var ids []int64
	for _, m := range msgs {
		ids = append(ids, m.id)
		if !strings.Contains(m.data, "hx-swap-oob") {
			t.Errorf("message %d has no out-of-band swap: %q", m.id, m.data)
		}
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	// The user's text keeps its line break (a CR would have cut the SSE
	// line) and stays text.
	if !strings.Contains(msgs[0].data, "line one\nline &lt;two&gt;") {
		t.Errorf("turn_start fragment = %q", msgs[0].data)
	}
	if !strings.Contains(msgs[2].data, `hx-swap-oob="beforeend:#msg-2-text">lo`+"\n"+`there</span>`) {
		t.Errorf("delta fragment = %q", msgs[2].data)
	}

	// The page was drawn at 3: the stream starts with 4; a reconnecting
	// browser's Last-Event-ID wins over ?after=.
	for _, tc := range []struct {
		name   string
		query  string
		header http.Header
		want   []int64
	}{
		{"after", "?after=3", nil, []int64{4, 5}},
		{"Last-Event-ID wins", "?after=1", http.Header{"Last-Event-Id": {"4"}}, []int64{5}},
		// Beyond the last event: the stream starts with the last one
		// rather than staying silent.
		{"Last-Event-ID beyond the log", "", http.Header{"Last-Event-Id": {"99"}}, []int64{5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, msgs := readStream(t, e, ada, path+tc.query, tc.header, len(tc.want))
			var ids []int64
			for _, m := range msgs {
				ids = append(ids, m.id)
			}
			if diff := cmp.Diff(tc.want, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
	// The JSON stream likewise.
	if _, _, msgs := readStream(t, e, ada, "/api/v1/conversations/"+conv.ID+"/events", http.Header{"Last-Event-Id": {"99"}}, 1); len(msgs) != 1 || msgs[0].id != 5 {
		t.Errorf("JSON stream from beyond the log = %+v, want the last event (5)", msgs)
	}
	// The final message replaces the streamed one: the stream from 3 knows
	// (from the log up to 3) that message m1 is on the page.
	_, _, msgs = readStream(t, e, ada, path+"?after=3", nil, 1)
	if !strings.Contains(msgs[0].data, `id="msg-2"`) || !strings.Contains(msgs[0].data, `hx-swap-oob="true"`) {
		t.Errorf("assistant_message fragment after 3 = %q, want a replacement of #msg-2", msgs[0].data)
	}

	for _, tc := range []struct {
		name string
		b    browser
		path string
		want int
	}{
		{"another user", eve, path + "?after=0", http.StatusNotFound},
		{"unknown conversation", ada, "/conversations/00000000-0000-0000-0000-000000000000/stream", http.StatusNotFound},
		{"bad after", ada, path + "?after=-1", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if status, ctype, _ := readStream(t, e, tc.b, tc.path, nil, 0); status != tc.want || ctype == "text/event-stream" {
				t.Errorf("= %d %s, want %d before any stream header", status, ctype, tc.want)
			}
		})
	}
}
