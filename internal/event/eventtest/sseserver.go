package eventtest

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"strategist/internal/event"
)

// SSEServer serves a fixed transcript as a Strategist event stream and
// drops connections on cue, for testing clients that must resume (run it
// with httptest.NewServer). A connection starts after the seq its request
// asks for: Last-Event-ID when present, else ?after=, else 0.
type SSEServer struct {
	// Records is the conversation's log.
	Records []event.Record
	// Connections scripts the connections in turn. Connections past the
	// script send every remaining record and stay open until the client
	// leaves.
	Connections []Connection
	// Token, when set, is the Bearer token every request must carry (else
	// 401).
	Token string

	mu       sync.Mutex
	requests []Request
}

// Connection is how one connection behaves.
type Connection struct {
	// Status, when set, refuses the request with this status and a JSON
	// error body.
	Status int
	// Frames, when positive, is how many records the connection sends
	// before it ends (with Cut, the cut frame is one more); it also ends
	// when the records run out. 0 sends every record and stays open.
	Frames int
	// Cut ends the connection in the middle of a frame, aborting it,
	// instead of closing the stream cleanly.
	Cut bool
	// Rewind starts the connection this many records before the position
	// asked for, like a server that replays too much.
	Rewind int
	// KeepAlive sends a keep-alive comment before every frame.
	KeepAlive bool
}

// Request is what a connection asked for.
type Request struct {
	LastEventID   string
	After         string
	Authorization string
}

// Requests returns the requests received so far.
func (s *SSEServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ServeHTTP serves one connection.
func (s *SSEServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := Request{LastEventID: r.Header.Get("Last-Event-ID"), After: r.URL.Query().Get("after"), Authorization: r.Header.Get("Authorization")}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	var script Connection
	if n < len(s.Connections) {
		script = s.Connections[n]
	}
	if s.Token != "" && req.Authorization != "Bearer "+s.Token {
		script.Status = http.StatusUnauthorized
	}
	if script.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(script.Status)
		fmt.Fprintf(w, `{"error":{"code":"REFUSED","message":"refused with %d"}}`, script.Status)
		return
	}
	from := req.LastEventID
	if from == "" {
		from = req.After
	}
	after, _ := strconv.ParseInt(from, 10, 64)
	start := 0
	for start < len(s.Records) && s.Records[start].Seq <= after {
		start++
	}
	start = max(0, start-script.Rewind)

	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	limited := script.Frames > 0
	sent := 0
	for _, rec := range s.Records[start:] {
		if limited && sent == script.Frames {
			if script.Cut {
				fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s", rec.Seq, rec.Type, rec.Payload[:len(rec.Payload)/2])
				_ = rc.Flush()
				panic(http.ErrAbortHandler) // the connection drops mid-frame
			}
			return
		}
		if script.KeepAlive {
			fmt.Fprint(w, ": keep-alive\n\n")
		}
		fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", rec.Seq, rec.Type, rec.Payload)
		if err := rc.Flush(); err != nil {
			return
		}
		sent++
	}
	if limited {
		return
	}
	<-r.Context().Done()
}
