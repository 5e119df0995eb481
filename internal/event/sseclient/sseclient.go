// Package sseclient follows a Strategist conversation's event stream from a
// Go program (the watch command, end-to-end tests), on the client of
// github.com/r3labs/sse/v2, and resumes it across dropped connections
// without losing or repeating an event.
//
// The r3labs client parses frames and sends Last-Event-ID, but left alone it
// stops for good when the server closes the stream cleanly (EOF counts as
// success), retries a refused request (401, 404) for 15 minutes, records
// the id of a frame cut off by a dropped connection (so the resumed stream
// would skip that event), caps frames at 64 KiB and hands keep-alive
// comments to the handler as empty events. Follower therefore runs one
// connection at a time with the client's own retries off, and owns the
// resume position: the seq of the last complete record it yielded, sent as
// both Last-Event-ID and ?after= on every reconnect.
package sseclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/r3labs/sse/v2"
	"gopkg.in/cenkalti/backoff.v1"

	"strategist/internal/event"
)

// maxFrame bounds one SSE frame (a graph snapshot can be large).
const maxFrame = 16 << 20

// StatusError is a refused stream request: its HTTP status and the server's
// error message.
type StatusError struct {
	StatusCode int
	Code       string // the API error code, when the body had one
	Message    string
}

func (e *StatusError) Error() string {
	msg := http.StatusText(e.StatusCode)
	if e.Message != "" {
		msg = e.Message
	}
	return fmt.Sprintf("sseclient: stream refused: %d %s", e.StatusCode, msg)
}

// Permanent reports whether retrying cannot help: a 4xx other than 408 and
// 429 (bad token, another user's or no such conversation).
func (e *StatusError) Permanent() bool {
	return e.StatusCode >= 400 && e.StatusCode < 500 && e.StatusCode != http.StatusRequestTimeout && e.StatusCode != http.StatusTooManyRequests
}

// Follower follows event streams. The zero value is ready to use.
type Follower struct {
	// HTTPClient makes the requests; it must not time out whole requests
	// (streams are long). Nil: a private transport, closed when Follow ends.
	HTTPClient *http.Client
	// RetryMin and RetryMax bound the reconnect backoff (defaults 250 ms
	// and 5 s); it doubles after each connection that brought nothing new.
	RetryMin, RetryMax time.Duration
	// OnDisconnect, when set, hears about every lost connection before the
	// wait to reconnect: why (nil when the server closed the stream), the
	// last seq received and the wait.
	OnDisconnect func(err error, lastSeq int64, retryIn time.Duration)
}

// Follow follows a stream with a zero Follower.
func Follow(ctx context.Context, streamURL, token string, after int64) iter.Seq2[event.Record, error] {
	return (&Follower{}).Follow(ctx, streamURL, token, after)
}

// Follow yields the records of the stream at streamURL (GET
// /api/v1/conversations/{id}/events) with seq above after, in order, each
// once, reconnecting whenever the connection drops. token, when not empty,
// is sent as a Bearer token. Records carry their seq, type, payload, turn id
// and the conversation id of the URL; CreatedAt is not on the wire.
//
// It ends without error when ctx ends or the consumer stops; with an error
// (a *StatusError) when the server refuses the stream for good, or when the
// stream breaks the protocol (an event without an id).
func (f *Follower) Follow(ctx context.Context, streamURL, token string, after int64) iter.Seq2[event.Record, error] {
	return func(yield func(event.Record, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		hc := f.HTTPClient
		if hc == nil {
			tr := http.DefaultTransport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			hc = &http.Client{Transport: tr}
		}
		s := &follow{yield: yield, conversationID: conversationFromURL(streamURL), last: after}
		retryMin, retryMax := f.RetryMin, f.RetryMax
		if retryMin <= 0 {
			retryMin = 250 * time.Millisecond
		}
		if retryMax < retryMin {
			retryMax = max(5*time.Second, retryMin)
		}
		retry := retryMin
		for {
			before := s.last
			err := s.connect(ctx, hc, streamURL, token)
			if s.ended || ctx.Err() != nil {
				return
			}
			if se, ok := errors.AsType[*StatusError](err); ok && se.Permanent() {
				yield(event.Record{}, err)
				return
			}
			if s.last > before {
				retry = retryMin
			}
			if f.OnDisconnect != nil {
				f.OnDisconnect(err, s.last, retry)
			}
			t := time.NewTimer(retry)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			retry = min(retry*2, retryMax)
		}
	}
}

// follow is one Follow's state; it lives on the consumer's goroutine (the
// r3labs client calls the handler on the goroutine that subscribed).
type follow struct {
	yield          func(event.Record, error) bool
	conversationID string
	last           int64 // seq of the last record yielded
	ended          bool  // the consumer stopped or the stream broke the protocol
}

// connect runs one connection until it ends; it returns why (nil for a
// clean close by the server).
func (s *follow) connect(ctx context.Context, hc *http.Client, streamURL, token string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := sse.NewClient(withAfter(streamURL, s.last), sse.ClientMaxBufferSize(maxFrame))
	c.Connection = hc
	c.ReconnectStrategy = &backoff.StopBackOff{} // one connection; Follow reconnects
	c.ResponseValidator = validate
	if token != "" {
		c.Headers["Authorization"] = "Bearer " + token
	}
	if s.last > 0 {
		c.LastEventID.Store([]byte(strconv.FormatInt(s.last, 10)))
	}
	var broken error
	err := c.SubscribeWithContext(ctx, "", func(msg *sse.Event) {
		if s.ended || broken != nil {
			return
		}
		rec, ok, err := s.decode(msg)
		switch {
		case err != nil:
			// A frame cut off by the dropped connection, or garbage: end
			// this connection and resume after the last good record.
			broken = err
			cancel()
			return
		case !ok || rec.Seq <= s.last:
			return // a comment, or a record already yielded
		}
		s.last = rec.Seq
		if !s.yield(rec, nil) {
			s.ended = true
			cancel()
		}
	})
	if broken != nil {
		if _, ok := errors.AsType[*protocolError](broken); ok {
			s.ended = true
			s.yield(event.Record{}, broken)
		}
		return broken
	}
	return err
}

// protocolError is a stream that breaks the SSE contract of the server.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return "sseclient: " + e.msg }

// decode turns a frame into a record. ok is false for frames that carry no
// event (comments). A frame whose data is not complete JSON is an error
// that a reconnect repairs; an event without a numeric id is a protocol
// error.
func (s *follow) decode(msg *sse.Event) (event.Record, bool, error) {
	if len(msg.Event) == 0 && len(msg.Data) == 0 {
		return event.Record{}, false, nil
	}
	if len(msg.Data) == 0 || !json.Valid(msg.Data) {
		return event.Record{}, false, fmt.Errorf("sseclient: incomplete frame after seq %d", s.last)
	}
	seq, err := strconv.ParseInt(string(msg.ID), 10, 64)
	if err != nil || seq <= 0 || len(msg.Event) == 0 {
		return event.Record{}, false, &protocolError{fmt.Sprintf("event %q without a valid id (%q)", msg.Event, msg.ID)}
	}
	var turn struct {
		TurnID string `json:"turnId"`
	}
	_ = json.Unmarshal(msg.Data, &turn) // a payload without turnId is the checker's business
	return event.Record{
		ConversationID: s.conversationID,
		Seq:            seq,
		TurnID:         turn.TurnID,
		Type:           string(msg.Event),
		Payload:        json.RawMessage(append([]byte(nil), msg.Data...)),
	}, true, nil
}

// validate accepts a 200 event stream and turns anything else into a
// *StatusError carrying the API's error message.
func validate(_ *sse.Client, resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var apiErr struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &apiErr)
	return &StatusError{StatusCode: resp.StatusCode, Code: apiErr.Error.Code, Message: apiErr.Error.Message}
}

// withAfter sets the after query parameter of a stream URL.
func withAfter(streamURL string, after int64) string {
	if after <= 0 {
		return streamURL
	}
	u, err := url.Parse(streamURL)
	if err != nil {
		return streamURL // the request will report the bad URL
	}
	q := u.Query()
	q.Set("after", strconv.FormatInt(after, 10))
	u.RawQuery = q.Encode()
	return u.String()
}

// conversationFromURL finds {id} in .../conversations/{id}/events.
func conversationFromURL(streamURL string) string {
	u, err := url.Parse(streamURL)
	if err != nil {
		return ""
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "conversations" {
			return parts[i+1]
		}
	}
	return ""
}
