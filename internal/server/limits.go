package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// streamRetryAfter is the Retry-After of a stream refused for the cap: a
// slot frees only when one of the caller's streams ends, which no clock
// predicts, so the client is asked to wait a few seconds.
const streamRetryAfter = 5 * time.Second

// streamSlots counts the streams each credential has open, so that one
// session or token cannot hold the server's memory with thousands of
// them. Every request of a stream route holds a slot while it runs
// (streamRoute); its own mutex guards count.
type streamSlots struct {
	max   int
	mu    sync.Mutex
	count map[string]int
}

// acquire takes one of key's slots; ok is false when all max are taken.
// release gives it back; it is safe to call more than once.
func (ss *streamSlots) acquire(key string) (release func(), ok bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.count[key] >= ss.max {
		return nil, false
	}
	if ss.count == nil {
		ss.count = map[string]int{}
	}
	ss.count[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			ss.mu.Lock()
			defer ss.mu.Unlock()
			if ss.count[key]--; ss.count[key] <= 0 {
				delete(ss.count, key)
			}
		})
	}, true
}

// streamRoute goes on every route that follows a conversation's events
// for as long as the client stays: the JSON event stream, the page's HTML
// stream, AG-UI runs, the OpenAI chat API, A2A and MCP (whose requests
// follow turns to their end: message/stream, tasks/resubscribe,
// ask_strategist; their short calls hold a slot only while they run). It
// runs after authentication and holds one of the caller's StreamsPerUser
// slots while the request runs, counted per credential (a session or an
// API token; the user in dev mode), page and API streams together; beyond
// them the answer is 429 RATE_LIMITED with Retry-After, through the error
// handler.
func (s *Server) streamRoute(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := currentIdentity(c)
		key := id.cred
		if key == "" {
			key = "user:" + id.userID
		}
		release, ok := s.slots.acquire(key)
		if !ok {
			return &APIError{Status: http.StatusTooManyRequests, Code: CodeRateLimited,
				Message:    "too many open streams for this sign-in or token (at most " + strconv.Itoa(s.slots.max) + "); close one first",
				RetryAfter: streamRetryAfter}
		}
		defer release()
		return next(c)
	}
}

// readBody reads a request's body (at most BodyLimit) before its handler
// runs, under the server's ReadTimeout, so that a body sent too slowly is
// answered 408 REQUEST_TIMEOUT here, the same way on every route, rather
// than as whatever its handler makes of a failed read. Streams outlive the
// timeout: once a body is read to its end, net/http lifts the connection's
// read deadline itself (it then reads in the background only to notice
// the client leaving), and a stream's writes keep their own deadline
// (serveStream). Ordinary requests stay bounded by RequestTimeout.
func (s *Server) readBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body == nil || r.Body == http.NoBody {
			return next(c)
		}
		body, err := io.ReadAll(r.Body)
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return &APIError{Status: http.StatusRequestTimeout, Code: CodeRequestTimeout, Message: "the request body took too long to arrive", Err: err}
		}
		if _, ok := errors.AsType[*http.MaxBytesError](err); !ok && err != nil {
			return &APIError{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body could not be read", Err: err}
		}
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		return next(c)
	}
}

// addrLimitListener caps the connections open at once from one client
// address: beyond max, a new connection is answered 429 and closed
// without reaching the HTTP server, so idle or slow sockets from one
// address cannot take the process's file descriptors and memory. The
// trusted proxies' addresses are not capped: every client behind them
// shares them. Its own mutex guards open.
type addrLimitListener struct {
	net.Listener
	max    int
	exempt []*net.IPNet
	mu     sync.Mutex
	open   map[string]int
}

// exempted reports an address of a trusted proxy.
func (l *addrLimitListener) exempted(host string) bool {
	ip := net.ParseIP(host)
	for _, n := range l.exempt {
		if ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}

// refusedConn is what a refused connection reads before it is closed.
var refusedConn = func() []byte {
	body := `{"error":{"code":"` + CodeRateLimited + `","message":"too many connections from this address; close some first"}}`
	return []byte("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: " +
		strconv.Itoa(int(streamRetryAfter/time.Second)) + "\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}()

// Accept returns the next connection whose address is under its cap.
func (l *addrLimitListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := conn.RemoteAddr().String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if l.exempted(host) {
			return conn, nil
		}
		l.mu.Lock()
		full := l.open[host] >= l.max
		if !full {
			if l.open == nil {
				l.open = map[string]int{}
			}
			l.open[host]++
		}
		l.mu.Unlock()
		if full {
			// A fresh socket's send buffer is empty: the write does not
			// wait for the client; the deadline is there all the same.
			_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = conn.Write(refusedConn)
			_ = conn.Close()
			continue
		}
		return &countedConn{Conn: conn, release: func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[host]--; l.open[host] <= 0 {
				delete(l.open, host)
			}
		}}, nil
	}
}

// countedConn gives its address's slot back when it is first closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
