package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
)

type chatCompletionRequest struct {
	Model         string                 `json:"model"`
	Messages      []protocol.ChatMessage `json:"messages"`
	Stream        bool                   `json:"stream"`
	StreamOptions *chatStreamOptions     `json:"stream_options"`
	User          string                 `json:"user"`
}

type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
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

func (p *Protocol) chatCompletions(c echo.Context) error {
	var req chatCompletionRequest
	// Clients send many fields Strategist has no use for (temperature,
	// tools, ...): unknown fields are ignored, unlike in the JSON API.
	if err := protocol.DecodeLenient(c, &req); err != nil {
		return err
	}
	auto := false
	switch req.Model {
	case modelAuto:
		auto = true
	case modelManual:
	default:
		return &protocol.APIError{Status: http.StatusNotFound, Code: "MODEL_NOT_FOUND",
			Message: fmt.Sprintf("the model %s does not exist; use %s or %s", protocol.Quote(req.Model), modelManual, modelAuto)}
	}
	if len(req.Messages) == 0 || req.Messages[len(req.Messages)-1].Role != "user" {
		return protocol.BadRequest("messages must end with a user message")
	}
	message := req.Messages[len(req.Messages)-1].Text()
	if strings.TrimSpace(message) == "" {
		return protocol.BadRequest("the last user message has no text")
	}
	conv, madeNow, err := p.conversation(c, req.Messages, message)
	if err != nil {
		return err
	}
	c.Response().Header().Set(HeaderConversation, conv.ID)
	id := "chatcmpl-" + conv.ID
	created := time.Now().Unix()
	n := protocol.NewNarrator(auto)
	msg := protocol.Message{UserID: account.UserID(c.Request().Context()), Conversation: conv, Text: message, AutoBuild: auto, Created: madeNow}
	// Following the turn ends with the request, at shutdown, when the
	// token is revoked or the conversation deleted; the turn itself runs
	// on.
	ctx, cancel := p.host.StreamContext(c, conv.ID)
	defer cancel()

	if !req.Stream {
		var text strings.Builder
		out, err := p.host.Converse(ctx, msg, func(_ *event.Record, e event.Event) error {
			if e != nil {
				text.WriteString(n.Text(e))
			}
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil // nobody is left to answer
			}
			return err
		}
		text.WriteString(n.Para(p.closing(c, conv.ID)))
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
	out, err := p.host.Converse(ctx, msg, func(_ *event.Record, e event.Event) error {
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
		return err
	}
	if err != nil {
		// The client went away or the stream failed mid-answer: the turn
		// runs on; there is nobody left to tell.
		return nil
	}
	if err := send(&chatMessageOut{Content: n.Para(p.closing(c, conv.ID))}, nil, nil); err != nil {
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
func (p *Protocol) closing(c echo.Context, conversationID string) string {
	summary, _ := p.host.RootSummary(c.Request().Context(), account.UserID(c.Request().Context()), conversationID)
	return summary + " Conversation: " + p.host.ConversationURL(conversationID)
}

func usageOf(out protocol.Outcome) chatUsage {
	return chatUsage{PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens, TotalTokens: out.Usage.TotalTokens}
}

// conversationLinkRE finds a conversation page's address in text a client
// sends back (an earlier answer ends with one).
var conversationLinkRE = regexp.MustCompile(`/conversations/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})`)

// conversation finds the request's conversation: the header's, else the
// one an earlier answer links to, else a new one.
func (p *Protocol) conversation(c echo.Context, msgs []protocol.ChatMessage, first string) (conv store.Conversation, created bool, err error) {
	ctx := c.Request().Context()
	userID := account.UserID(ctx)
	id := strings.TrimSpace(c.Request().Header.Get(HeaderConversation))
	if id == "" {
		for i := len(msgs) - 1; i >= 0 && id == ""; i-- {
			if msgs[i].Role != "assistant" {
				continue
			}
			if m := conversationLinkRE.FindAllStringSubmatch(msgs[i].Text(), -1); len(m) > 0 {
				id = m[len(m)-1][1]
			}
		}
	}
	if id != "" {
		if !protocol.IsUUID(id) {
			return conv, false, protocol.BadRequest(HeaderConversation + " must be a conversation id (a UUID)")
		}
		conv, err = p.host.Conversation(ctx, userID, strings.ToLower(id))
		if errors.Is(err, store.ErrNotFound) {
			return conv, false, protocol.NotFound("conversation " + id)
		}
		return conv, false, err
	}
	site := strings.TrimSpace(c.Request().Header.Get(HeaderSite))
	if site == "" {
		site = protocol.DefaultSite
	}
	if err := p.host.CheckSite(ctx, userID, site); err != nil {
		return conv, false, err
	}
	conv, err = p.host.CreateConversation(ctx, userID, site, protocol.TitleFrom(first))
	return conv, err == nil, err
}
