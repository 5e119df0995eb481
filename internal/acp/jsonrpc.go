// Package acp serves Strategist over the Agent Client Protocol (ACP): the
// JSON-RPC 2.0 protocol, one message per line on standard input and output,
// that editors such as Zed and JetBrains IDEs speak to the agents they start.
//
// The agent here runs no turns of its own: each session is a Strategist
// conversation on a running server, each prompt a turn started through the
// server's API, and the session's updates are the conversation's events read
// from its log (Backend is that server). Conn is the small JSON-RPC layer
// both directions of ACP need: the editor calls the agent (initialize,
// session/new, session/prompt, session/cancel) and the agent calls the
// editor (session/update, session/request_permission).
package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// JSON-RPC error codes, and ACP's own.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeAuthRequired is ACP's "authentication required": the API token is
	// missing, wrong or revoked.
	CodeAuthRequired = -32000
	// CodeResourceNotFound is ACP's "resource not found" (an unknown session).
	CodeResourceNotFound = -32002
)

// Error is a JSON-RPC error, sent as the answer to a request (a handler
// returns it) or received as one (Call returns it).
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("acp: %s (%d)", e.Message, e.Code) }

// message is any JSON-RPC message: a request (method and id), a
// notification (method, no id) or a response (id, result or error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Handler answers what the other side sends. Request's result is sent as
// the answer (an *Error as a JSON-RPC error, any other error as an internal
// error with its message); Notify has no answer.
type Handler interface {
	Request(ctx context.Context, method string, params json.RawMessage) (any, error)
	Notify(ctx context.Context, method string, params json.RawMessage)
}

// Conn is one JSON-RPC connection over a pair of streams, one message per
// line. Serve reads; Call and Notify write from any goroutine.
//
// Serve runs each request in a goroutine of its own (a prompt lasts as long
// as its turn, and the editor's cancel must get through meanwhile) and each
// notification in the reading goroutine, in order. When the input ends,
// Serve cancels the requests' context, waits for their goroutines and
// fails the calls still waiting for an answer. wmu serializes writes; mu
// guards nextID and pending.
type Conn struct {
	in  io.Reader
	out io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan *message
	closed  bool
}

// NewConn reads messages from in and writes them to out.
func NewConn(in io.Reader, out io.Writer) *Conn {
	return &Conn{in: in, out: out, pending: map[string]chan *message{}}
}

// errClosed fails the calls still waiting when the connection ends.
var errClosed = errors.New("acp: connection closed")

// Serve reads messages until the input ends or ctx does, hands requests
// and notifications to h and answers to the calls waiting for them. It
// returns nil at the end of the input.
func (c *Conn) Serve(ctx context.Context, h Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		c.mu.Lock()
		c.closed = true
		for id, ch := range c.pending {
			close(ch)
			delete(c.pending, id)
		}
		c.mu.Unlock()
	}()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	// The reader stops at the end of the input; a read that blocks past
	// ctx's end is left to the process's exit (standard input cannot be
	// interrupted), so it must not hold anything: it only sends lines.
	go func() {
		r := bufio.NewReader(c.in)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("acp: reading: %w", err)
		case line = <-lines:
		}
		if len(trimSpace(line)) == 0 {
			continue
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			c.answer(json.RawMessage("null"), nil, &Error{Code: CodeParseError, Message: "not a JSON-RPC message: " + err.Error()})
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := guardRequest(ctx, h, m.Method, m.Params)
				c.answer(m.ID, res, err)
			}()
		case m.Method != "":
			h.Notify(ctx, m.Method, m.Params)
		case len(m.ID) > 0:
			c.mu.Lock()
			ch := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- &m
			}
		default:
			c.answer(json.RawMessage("null"), nil, &Error{Code: CodeInvalidRequest, Message: "a message needs a method or an id"})
		}
	}
}

// guardRequest runs h.Request and turns a panic of it into an internal
// error answer: requests run on goroutines of Serve, and a panic would end
// the relay for every request the editor has in flight.
func guardRequest(ctx context.Context, h Handler, method string, params json.RawMessage) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", method, p)}
		}
	}()
	return h.Request(ctx, method, params)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// answer writes the response to request id.
func (c *Conn) answer(id json.RawMessage, res any, err error) {
	m := message{JSONRPC: "2.0", ID: id}
	if err != nil {
		rpcErr, ok := errors.AsType[*Error](err)
		if !ok {
			rpcErr = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		m.Error = rpcErr
	} else {
		raw, merr := json.Marshal(res)
		if merr != nil {
			m.Error = &Error{Code: CodeInternalError, Message: merr.Error()}
		} else {
			m.Result = raw
		}
	}
	_ = c.write(&m) // the other side went away: nothing is left to tell
}

func (c *Conn) write(m *message) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.out.Write(append(raw, '\n'))
	return err
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(&message{JSONRPC: "2.0", Method: method, Params: raw})
}

// Call sends a request and decodes its answer into result; a JSON-RPC
// error comes back as *Error. It gives up when ctx ends or the
// connection closes.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	c.nextID++
	id := strconv.FormatInt(c.nextID, 10)
	c.pending[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if err := c.write(&message{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: raw}); err != nil {
		forget()
		return err
	}
	select {
	case <-ctx.Done():
		forget()
		return ctx.Err()
	case m, ok := <-ch:
		if !ok {
			return errClosed
		}
		if m.Error != nil {
			return m.Error
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}
