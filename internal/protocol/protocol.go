// Package protocol is what the agent protocols (MCP, the OpenAI-compatible
// API, A2A, AG-UI) share with the server that hosts them: the API's errors
// and their codes, the input checks, the shape of a protocol's routes, and
// the message a protocol client sends to a conversation (Message) with how
// its turns ended (Outcome). Each protocol lives in a package of its own
// under internal/protocol and declares the narrow host it needs; the server
// (internal/server) mounts its routes behind API-token authentication and
// writes its errors with the protocol's WriteError.
package protocol

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/store"
)

// DefaultSite is the site of conversations a protocol client starts
// without naming one.
const DefaultSite = "plasmodb"

// Protocol is an agent protocol the server serves for API-token callers.
type Protocol interface {
	// Routes are its routes; the server mounts each behind API-token
	// authentication (Deny answers a caller without one) unless it is
	// Public.
	Routes() []Route
	// Deny answers a request without a valid API token; msg says what to
	// send. The WWW-Authenticate header is already set.
	Deny(c echo.Context, msg string) error
	// Owns says whether a request is on one of its routes: the server's
	// error handler then writes its errors with WriteError.
	Owns(r *http.Request) bool
	// WriteError writes ae as the protocol's error response.
	WriteError(c echo.Context, ae *APIError) error
}

// Route is one route of a protocol.
type Route struct {
	// Method is the HTTP method; "" is any method.
	Method  string
	Path    string
	Handler echo.HandlerFunc
	// Stream marks a route whose answers may follow turns to their end:
	// it holds one of the caller's stream slots while it runs and is never
	// compressed.
	Stream bool
	// Public marks a route served to anyone, without an API token (A2A's
	// agent card).
	Public bool
}

// Message is one message of a protocol client to a conversation, for the
// host to start (or accept) a turn and follow it.
type Message struct {
	UserID       string
	Conversation store.Conversation
	// Text is the researcher's text; an approval word (IsApproval)
	// accepts the pending plan if there is one, and an option's number
	// answers the question waiting with that option's message
	// (event.QuestionAsked.Answer).
	Text string
	// Accept, when set, is the id of the pending plan to accept instead
	// of starting a turn (Text is then unused).
	Accept string
	// AutoBuild accepts the planner's handoff as soon as the plan turn
	// completes, and follows the build turn too.
	AutoBuild bool
	// Heartbeat is how long the stream may be silent before the callback
	// is called with a nil record (a keep-alive); zero is the server's
	// keep-alive.
	Heartbeat time.Duration
	// Follow, when set, is a running turn of the conversation to follow
	// instead of starting one (Text is then unused); the stream is read
	// from Conversation.LastEventSeq.
	Follow string
	// Created says the request made Conversation for this message: a
	// refused start deletes it again, so a refused request leaves nothing.
	Created bool
}

// Outcome is how the followed turns ended.
type Outcome struct {
	// TurnIDs are the turns followed, in order.
	TurnIDs []string
	Status  event.TurnStatus
	Error   string
	// PendingHandoff is the plan waiting for approval, when the last turn
	// asked for a build that was not accepted.
	PendingHandoff string
	// Question is the question the last turn ended with, waiting for the
	// researcher's answer (their next message).
	Question *event.QuestionAsked
	Usage    llm.Usage
}
