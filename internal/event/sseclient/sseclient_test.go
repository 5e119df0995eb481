package sseclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/event/sseclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const conv = "c0000000-0000-4000-8000-000000000001"

func records(n int) []event.Record {
	var out []event.Record
	for i := 1; i <= n; i++ {
		out = append(out, event.Record{
			ConversationID: conv, Seq: int64(i), TurnID: "t1", Type: "assistant_delta",
			Payload: []byte(fmt.Sprintf(`{"delta":"part %d","messageId":"m1","turnId":"t1"}`, i)),
		})
	}
	return out
}

func serve(t *testing.T, s *eventtest.SSEServer) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL + "/api/v1/conversations/" + conv + "/events"
}

// disconnect is what OnDisconnect heard.
type disconnect struct {
	clean   bool
	lastSeq int64
}

// follow collects n records (or until the stream ends) with fast retries.
func follow(t *testing.T, url, token string, after int64, n int) ([]event.Record, []disconnect, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var drops []disconnect
	f := &sseclient.Follower{
		RetryMin: time.Millisecond, RetryMax: 10 * time.Millisecond,
		OnDisconnect: func(err error, last int64, _ time.Duration) { drops = append(drops, disconnect{err == nil, last}) },
	}
	var got []event.Record
	for r, err := range f.Follow(ctx, url, token, after) {
		if err != nil {
			return got, drops, err
		}
		got = append(got, r)
		if len(got) == n {
			break
		}
	}
	return got, drops, ctx.Err()
}

// TestFollowResumes: the stream is closed cleanly, then cut in the middle of
// a frame, then served again from too early; the client gets every record
// once, in order, and resumes each time from the last complete record.
func TestFollowResumes(t *testing.T) {
	want := records(10)
	s := &eventtest.SSEServer{
		Records: want,
		Token:   "tok",
		Connections: []eventtest.Connection{
			{Frames: 3},                  // 1..3, clean close
			{Frames: 2, Cut: true},       // 4..5, then half of 6
			{Rewind: 2, KeepAlive: true}, // 4..10 again from 4
		},
	}
	got, drops, err := follow(t, serve(t, s), "tok", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
	wantRequests := []eventtest.Request{
		{Authorization: "Bearer tok"},
		{LastEventID: "3", After: "3", Authorization: "Bearer tok"},
		// Not 6: the cut frame's id was read, but its event was not.
		{LastEventID: "5", After: "5", Authorization: "Bearer tok"},
	}
	if diff := cmp.Diff(wantRequests, s.Requests()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]disconnect{{true, 3}, {false, 5}}, drops, cmp.AllowUnexported(disconnect{})); diff != "" {
		t.Errorf("disconnects mismatch (-want +got):\n%s", diff)
	}
}

func TestFollowFromAfter(t *testing.T) {
	s := &eventtest.SSEServer{Records: records(6)}
	got, _, err := follow(t, serve(t, s), "", 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Seq != 5 || got[1].Seq != 6 {
		t.Errorf("records = %+v, want seqs 5 and 6", got)
	}
	if diff := cmp.Diff([]eventtest.Request{{LastEventID: "4", After: "4"}}, s.Requests()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

func TestFollowRefusals(t *testing.T) {
	tests := []struct {
		name      string
		conns     []eventtest.Connection
		wantErr   int // status of the final error, 0 for success
		wantConns int
	}{
		{"not found is final", []eventtest.Connection{{Status: http.StatusNotFound}}, http.StatusNotFound, 1},
		{"unauthorized is final", []eventtest.Connection{{Status: http.StatusUnauthorized}}, http.StatusUnauthorized, 1},
		{"unavailable is retried", []eventtest.Connection{{Status: http.StatusServiceUnavailable}, {Status: http.StatusTooManyRequests}}, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &eventtest.SSEServer{Records: records(2), Connections: tt.conns}
			got, _, err := follow(t, serve(t, s), "", 0, 2)
			if tt.wantErr == 0 {
				if err != nil || len(got) != 2 {
					t.Fatalf("follow = %d records, %v; want 2, nil", len(got), err)
				}
			} else {
				se, ok := errors.AsType[*sseclient.StatusError](err)
				if !ok || se.StatusCode != tt.wantErr || se.Message == "" {
					t.Fatalf("follow error = %v, want a StatusError %d with the server's message", err, tt.wantErr)
				}
			}
			if n := len(s.Requests()); n != tt.wantConns {
				t.Errorf("%d requests, want %d", n, tt.wantConns)
			}
		})
	}
}

func TestFollowProtocolError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: turn_start\ndata: {}\n\n")
	}))
	defer srv.Close()
	_, _, err := follow(t, srv.URL, "", 0, 1)
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("follow error = %v, want a protocol error", err)
	}
}

// TestFollowStops: a consumer that stops early ends the connection (goleak
// checks nothing is left running).
func TestFollowStops(t *testing.T) {
	s := &eventtest.SSEServer{Records: records(5)}
	got, _, err := follow(t, serve(t, s), "", 0, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("follow = %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range sseclient.Follow(ctx, serve(t, s), "", 0) {
		t.Errorf("a cancelled follow yielded %v", err)
	}
}
