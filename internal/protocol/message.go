package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// ErrStopped ends following a turn (a Host.Converse callback returns it)
// when the client is gone or has what it asked for; the turn runs on.
var ErrStopped = errors.New("protocol: stopped following")

// approvalWords are the messages that accept a pending plan instead of
// starting a new turn (the model "strategist" builds only when asked).
var approvalWords = []string{"build", "approve", "build it", "build this plan", "approve the plan", "go ahead", "yes", "ok"}

// IsApproval says whether a message is an approval word: it accepts the
// conversation's pending plan, if one waits, instead of starting a turn.
func IsApproval(msg string) bool {
	m := strings.ToLower(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(msg), ".!")))
	return slices.Contains(approvalWords, m)
}

// ChatMessage is one message of a chat client's history, as the
// OpenAI-compatible API and AG-UI send it: a role and a content that is a
// string or an array of content parts.
type ChatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Text returns a message's text: a string, or the text parts of an array
// of content parts.
func (m ChatMessage) Text() string {
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

// DecodeLenient reads the request body into v, ignoring unknown fields:
// protocol clients send what their framework holds (temperature, tools,
// state, ...). A malformed body is a 400 that says what is wrong; an
// oversized one is the body limit's error.
func DecodeLenient(c echo.Context, v any) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		if he, ok := errors.AsType[*echo.HTTPError](err); ok {
			return he
		}
		return fmt.Errorf("read body: %w", err)
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(v); err != nil {
		return BadRequest(DescribeJSONError(err))
	}
	return nil
}

// DescribeJSONError says what is wrong with a JSON body, for a 400.
func DescribeJSONError(err error) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return "malformed JSON at byte " + strconv.FormatInt(se.Offset, 10) + ": " + se.Error()
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field != "" {
			return fmt.Sprintf("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return "the body must be a JSON object, not " + te.Value
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "malformed JSON: the body ends too early"
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "unknown field " + name
	}
	return "malformed JSON: " + err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return goKind
}
