// Package openai serves Strategist as an OpenAI-compatible chat API
// (POST /v1/chat/completions, GET /v1/models), so chat clients such as
// Open WebUI and LibreChat use it as a model. Each request's last user
// message starts a turn through the same orchestrator as the app (the
// host's Converse); the answer streams the turn's text and progress and
// ends with the strategy's root count and the conversation page's address.
//
// Which conversation: the X-Strategist-Conversation header (a conversation
// id of the caller's), else the conversation whose page an earlier
// assistant message of the request links to (every answer ends with that
// link, and chat clients send the history back), else a new conversation
// on the site named by X-Strategist-Site (default plasmodb). The `user`
// field is the client's own end-user id and is ignored. The response
// names the conversation in its X-Strategist-Conversation header. Errors
// are OpenAI's error body.
package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// Where the API answers.
const (
	ModelsPath      = "/v1/models"
	CompletionsPath = "/v1/chat/completions"
)

// The models offered: strategist plans and builds only when the user
// replies with an approval word ("build", "approve"); strategist-auto
// builds the plan as soon as it is ready.
const (
	modelManual = "strategist"
	modelAuto   = "strategist-auto"
)

// Headers of the OpenAI-compatible API.
const (
	HeaderConversation = "X-Strategist-Conversation"
	HeaderSite         = "X-Strategist-Site"
)

// Host is what the API needs of the server hosting it (*server.Host).
type Host interface {
	// Conversation is one of the user's conversations (store.ErrNotFound
	// for another's or none).
	Conversation(ctx context.Context, userID, conversationID string) (store.Conversation, error)
	// CreateConversation starts a conversation of the user's on site.
	CreateConversation(ctx context.Context, userID, site, title string) (store.Conversation, error)
	// CheckSite refuses (422 VALIDATION_ERROR) a site the catalog does
	// not know or the user cannot use.
	CheckSite(ctx context.Context, userID, site string) error
	// Converse starts the turn a message asks for and calls onRecord with
	// the events of the turns it follows until the last ends; the
	// orchestrator's refusals come back as *protocol.APIError.
	Converse(ctx context.Context, m protocol.Message, onRecord func(r *event.Record, e event.Event) error) (protocol.Outcome, error)
	// RootSummary describes the conversation's strategy in one line.
	RootSummary(ctx context.Context, userID, conversationID string) (string, *strategy.Step)
	// ConversationURL is the absolute address of a conversation's page.
	ConversationURL(conversationID string) string
	// StreamContext is the context of a request that follows a
	// conversation's turns: it ends with the request, at shutdown, when
	// the caller's credential is revoked or the conversation deleted.
	StreamContext(c echo.Context, conversationID string) (context.Context, context.CancelFunc)
}

// Protocol is the OpenAI-compatible API, a protocol.Protocol.
type Protocol struct {
	host Host
}

var _ protocol.Protocol = (*Protocol)(nil)

// New builds the API over host.
func New(host Host) (*Protocol, error) {
	if host == nil {
		return nil, errors.New("openai: nil host")
	}
	return &Protocol{host: host}, nil
}

// Routes are the models list and the chat completions, which follow turns.
func (p *Protocol) Routes() []protocol.Route {
	return []protocol.Route{
		{Method: http.MethodGet, Path: ModelsPath, Handler: p.models},
		{Method: http.MethodPost, Path: CompletionsPath, Handler: p.chatCompletions, Stream: true},
	}
}

// Deny answers a caller without an API token as OpenAI does, 401
// invalid_api_key.
func (p *Protocol) Deny(_ echo.Context, msg string) error {
	return &protocol.APIError{Status: http.StatusUnauthorized, Code: "INVALID_API_KEY", Message: msg}
}

// Owns says whether r is under /v1/, whose errors take OpenAI's shape.
func (p *Protocol) Owns(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/") }

// WriteError writes ae as OpenAI's error body.
func (p *Protocol) WriteError(c echo.Context, ae *protocol.APIError) error {
	return c.JSON(ae.Status, errorBody(ae))
}

// apiError is the OpenAI error body.
type apiError struct {
	Error apiErrorPayload `json:"error"`
}

type apiErrorPayload struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

// errorBody words an error in OpenAI's shape: the type from the status,
// the code Strategist's own in lower case.
func errorBody(ae *protocol.APIError) apiError {
	typ := "invalid_request_error"
	switch {
	case ae.Status == http.StatusUnauthorized:
		typ = "authentication_error"
	case ae.Status == http.StatusForbidden:
		typ = "permission_error"
	case ae.Status == http.StatusNotFound:
		typ = "not_found_error"
	case ae.Status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case ae.Status >= 500:
		typ = "server_error"
	}
	return apiError{Error: apiErrorPayload{Message: ae.Message, Type: typ, Code: strings.ToLower(ae.Code)}}
}

type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (p *Protocol) models(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": []model{
		{ID: modelManual, Object: "model", OwnedBy: "strategist"},
		{ID: modelAuto, Object: "model", OwnedBy: "strategist"},
	}})
}
