package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
)

// The OpenAI-compatible API (POST /v1/chat/completions, GET /v1/models)
// lets chat clients such as Open WebUI and LibreChat use Strategist as a
// model. Each request's last user message starts a turn through the same
// orchestrator as the app; the answer streams the turn's text and progress
// and ends with the strategy's root count and the conversation page's
// address.
//
// Which conversation: the X-Strategist-Conversation header (a conversation
// id of the caller's), else the conversation whose page an earlier
// assistant message of the request links to (every answer ends with that
// link, and chat clients send the history back), else a new conversation
// on the site named by X-Strategist-Site (default plasmodb). The `user`
// field is the client's own end-user id and is ignored. The response
// names the conversation in its X-Strategist-Conversation header.

// The models offered: strategist plans and builds only when the user
// replies with an approval word ("build", "approve"); strategist-auto
// builds the plan as soon as it is ready.
const (
	modelManual = "strategist"
	modelAuto   = "strategist-auto"
)

// Headers of the OpenAI-compatible API.
const (
	headerConversation = "X-Strategist-Conversation"
	headerSite         = "X-Strategist-Site"
)

// defaultProtocolSite is the site of conversations a protocol client starts
// without naming one: the offline PlasmoDB snapshot, always available.
const defaultProtocolSite = protocol.DefaultSite

type chatCompletionRequest struct {
	Model         string             `json:"model"`
	Messages      []chatMessageIn    `json:"messages"`
	Stream        bool               `json:"stream"`
	StreamOptions *chatStreamOptions `json:"stream_options"`
	User          string             `json:"user"`
}

type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessageIn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns a message's text: a string, or the text parts of an array
// of content parts.
func (m chatMessageIn) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type chatMessageOut struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content"`
}

type chatChoice struct {
	Index        int             `json:"index"`
	Message      *chatMessageOut `json:"message,omitempty"`
	Delta        *chatMessageOut `json:"delta,omitempty"`
	FinishReason *string         `json:"finish_reason"`
}

type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage,omitempty"`
}

// openAIError is the OpenAI error body.
type openAIError struct {
	Error openAIErrorPayload `json:"error"`
}

type openAIErrorPayload struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

// isOpenAIPath says whether a request is under the OpenAI-compatible API,
// whose errors take OpenAI's shape.
func isOpenAIPath(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/") }

// openAIErrorBody words an error in OpenAI's shape: the type from the
// status, the code Strategist's own in lower case.
func openAIErrorBody(ae *APIError) openAIError {
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
	return openAIError{Error: openAIErrorPayload{Message: ae.Message, Type: typ, Code: strings.ToLower(ae.Code)}}
}

func (s *Server) denyOpenAI(c echo.Context, msg string) error {
	return &APIError{Status: http.StatusUnauthorized, Code: "INVALID_API_KEY", Message: msg}
}

type openAIModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *Server) openAIModels(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": []openAIModel{
		{ID: modelManual, Object: "model", OwnedBy: "strategist"},
		{ID: modelAuto, Object: "model", OwnedBy: "strategist"},
	}})
}

func (s *Server) chatCompletions(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		if he, ok := errors.AsType[*echo.HTTPError](err); ok {
			return he
		}
		return fmt.Errorf("read body: %w", err)
	}
	var req chatCompletionRequest
	// Clients send many fields Strategist has no use for (temperature,
	// tools, ...): unknown fields are ignored, unlike in the JSON API.
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&req); err != nil {
		return badRequest(describeJSONError(err))
	}
	auto := false
	switch req.Model {
	case modelAuto:
		auto = true
	case modelManual:
	default:
		return &APIError{Status: http.StatusNotFound, Code: "MODEL_NOT_FOUND",
			Message: fmt.Sprintf("the model %s does not exist; use %s or %s", quote(req.Model), modelManual, modelAuto)}
	}
	if len(req.Messages) == 0 || req.Messages[len(req.Messages)-1].Role != "user" {
		return badRequest("messages must end with a user message")
	}
	message := req.Messages[len(req.Messages)-1].text()
	if strings.TrimSpace(message) == "" {
		return badRequest("the last user message has no text")
	}
	conv, madeNow, err := s.openAIConversation(c, req.Messages, message)
	if err != nil {
		return err
	}
	c.Response().Header().Set(headerConversation, conv.ID)
	id := "chatcmpl-" + conv.ID
	created := time.Now().Unix()
	n := protocol.NewNarrator(auto)
	creq := converseRequest{userID: userID(c), conv: conv, message: message, autoBuild: auto, heartbeat: s.cfg.KeepAlive, created: madeNow}
	// Following the turn ends with the request, at shutdown, when the
	// token is revoked or the conversation deleted; the turn itself runs
	// on.
	ctx, cancel := s.conversationStreamContext(c, conv.ID)
	defer cancel()

	if !req.Stream {
		var text strings.Builder
		out, err := s.converse(ctx, creq, func(_ *event.Record, e event.Event) error {
			if e != nil {
				text.WriteString(n.Text(e))
			}
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil // nobody is left to answer
			}
			return chatError(err)
		}
		text.WriteString(n.Para(s.closing(c, conv.ID, out)))
		stop := "stop"
		u := usageOf(out)
		return c.JSON(http.StatusOK, chatCompletion{ID: id, Object: "chat.completion", Created: created, Model: req.Model,
			Choices: []chatChoice{{Message: &chatMessageOut{Role: "assistant", Content: text.String()}, FinishReason: &stop}}, Usage: &u})
	}

	// Streaming: the turn starts before any byte is written, so a refused
	// start is still an ordinary error response.
	w := c.Response()
	started := false
	send := func(delta *chatMessageOut, finish *string, usage *chatUsage) error {
		if !started {
			started = true
			h := w.Header()
			h.Set(echo.HeaderContentType, "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Accel-Buffering", "no")
			w.WriteHeader(http.StatusOK)
		}
		chunk := chatCompletion{ID: id, Object: "chat.completion.chunk", Created: created, Model: req.Model, Choices: []chatChoice{}}
		if delta != nil || finish != nil {
			chunk.Choices = []chatChoice{{Delta: delta, FinishReason: finish}}
			if chunk.Choices[0].Delta == nil {
				chunk.Choices[0].Delta = &chatMessageOut{}
			}
		}
		chunk.Usage = usage
		raw, err := json.Marshal(chunk)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", raw); err != nil {
			return err
		}
		return http.NewResponseController(w).Flush()
	}
	out, err := s.converse(ctx, creq, func(_ *event.Record, e event.Event) error {
		if e == nil {
			if !started {
				return nil
			}
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return err
			}
			return http.NewResponseController(w).Flush()
		}
		if !started {
			if err := send(&chatMessageOut{Role: "assistant", Content: ""}, nil, nil); err != nil {
				return err
			}
		}
		if t := n.Text(e); t != "" {
			return send(&chatMessageOut{Content: t}, nil, nil)
		}
		return nil
	})
	if err != nil && !started && ctx.Err() == nil {
		return chatError(err)
	}
	if err != nil {
		// The client went away or the stream failed mid-answer: the turn
		// runs on; there is nobody left to tell.
		return nil
	}
	if err := send(&chatMessageOut{Content: n.Para(s.closing(c, conv.ID, out))}, nil, nil); err != nil {
		return nil
	}
	stop := "stop"
	if err := send(&chatMessageOut{}, &stop, nil); err != nil {
		return nil
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		u := usageOf(out)
		if err := send(nil, nil, &u); err != nil {
			return nil
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	_ = http.NewResponseController(w).Flush()
	return nil
}

// closing is the answer's last paragraph: the root count and the page.
func (s *Server) closing(c echo.Context, conversationID string, out converseOutcome) string {
	summary, _ := s.rootSummary(c.Request().Context(), userID(c), conversationID)
	return summary + " Conversation: " + s.conversationURL(conversationID)
}

func usageOf(out converseOutcome) chatUsage {
	return chatUsage{PromptTokens: out.usage.PromptTokens, CompletionTokens: out.usage.CompletionTokens, TotalTokens: out.usage.TotalTokens}
}

// openAIConversation finds the request's conversation: the header's, else
// the one an earlier answer links to, else a new one.
func (s *Server) openAIConversation(c echo.Context, msgs []chatMessageIn, first string) (conv store.Conversation, created bool, err error) {
	ctx := c.Request().Context()
	id := strings.TrimSpace(c.Request().Header.Get(headerConversation))
	if id == "" {
		for i := len(msgs) - 1; i >= 0 && id == ""; i-- {
			if msgs[i].Role != "assistant" {
				continue
			}
			if m := conversationLinkRE.FindAllStringSubmatch(msgs[i].text(), -1); len(m) > 0 {
				id = m[len(m)-1][1]
			}
		}
	}
	if id != "" {
		if !isUUID(id) {
			return conv, false, badRequest(headerConversation + " must be a conversation id (a UUID)")
		}
		conv, err = s.cfg.Store.Conversation(ctx, userID(c), strings.ToLower(id))
		if errors.Is(err, store.ErrNotFound) {
			return conv, false, notFound("conversation " + id)
		}
		return conv, false, err
	}
	site := strings.TrimSpace(c.Request().Header.Get(headerSite))
	if site == "" {
		site = defaultProtocolSite
	}
	if err := s.checkSite(c, site); err != nil {
		return conv, false, err
	}
	conv, err = s.cfg.Store.CreateConversation(ctx, userID(c), site, titleFrom(first), s.cfg.DefaultModel)
	return conv, err == nil, err
}
