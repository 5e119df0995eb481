package llm

import (
	"errors"
	"regexp"
	"strings"
)

// Redactor keeps an engine's credential out of every text that can reach a
// researcher or a log: error messages, the errors they wrap, and the
// server's own explanations, which sometimes echo the key. The zero value
// redacts nothing.
type Redactor struct {
	key   string
	shape *regexp.Regexp
}

// NewRedactor returns a Redactor for key. shape, when not nil, matches text
// that looks like a credential of the engine's kind, removed too: OpenAI
// echoes keys partly masked, so the configured key alone would not match.
func NewRedactor(key string, shape *regexp.Regexp) Redactor {
	return Redactor{key: key, shape: shape}
}

// Redact returns s with the key, and anything of the credential's shape,
// replaced by "[redacted]".
func (r Redactor) Redact(s string) string {
	if r.key != "" {
		s = strings.ReplaceAll(s, r.key, "[redacted]")
	}
	if r.shape != nil {
		s = r.shape.ReplaceAllString(s, "[redacted]")
	}
	return s
}

// SafeError returns err itself when its text is free of the credential,
// else an error with the redacted text. The original cannot stay in the
// chain, since anything printing the chain would print the key.
func (r Redactor) SafeError(err error) error {
	if err == nil {
		return nil
	}
	if s := err.Error(); r.Redact(s) != s {
		return errors.New(r.Redact(s))
	}
	return err
}

// maxServerMessage bounds the server's explanation quoted in an error, so
// that a proxy's whole HTML page does not end up in the researcher's chat.
const maxServerMessage = 400

// ServerMessage is the server's own explanation of an error, redacted and
// bounded, as a suffix (": ...") for the engine's message; "" when the
// server said nothing.
func (r Redactor) ServerMessage(m string) string {
	m = strings.TrimSpace(r.Redact(m))
	if m == "" {
		return ""
	}
	if len(m) > maxServerMessage {
		m = m[:maxServerMessage] + "…"
	}
	return ": " + m
}
