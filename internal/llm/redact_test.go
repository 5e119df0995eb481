package llm

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

const secretKey = "sk-test-0123456789abcdefSECRET"

func TestRedactorRedact(t *testing.T) {
	shape := regexp.MustCompile(`sk-[A-Za-z0-9_\-*]{6,}`)
	tests := []struct {
		name string
		r    Redactor
		in   string
		want string
	}{
		{"zero value redacts nothing", Redactor{}, "key " + secretKey, "key " + secretKey},
		{"the key, every time", NewRedactor(secretKey, nil), secretKey + " and " + secretKey, "[redacted] and [redacted]"},
		{"no key configured", NewRedactor("", nil), "nothing to hide", "nothing to hide"},
		{"a masked echo matches the shape", NewRedactor(secretKey, shape), "Incorrect API key provided: sk-test-******CRET.", "Incorrect API key provided: [redacted]."},
		{"the shape without a key", NewRedactor("", shape), "sk-abcdefgh", "[redacted]"},
	}
	for _, tt := range tests {
		if got := tt.r.Redact(tt.in); got != tt.want {
			t.Errorf("%s: Redact(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestRedactorSafeError(t *testing.T) {
	r := NewRedactor(secretKey, nil)
	clean := fmt.Errorf("dial tcp: %w", errors.New("connection refused"))
	if got := r.SafeError(clean); got != clean {
		t.Errorf("SafeError(clean) = %v, want the same error", got)
	}
	if got := r.SafeError(nil); got != nil {
		t.Errorf("SafeError(nil) = %v, want nil", got)
	}
	leaky := fmt.Errorf("GET https://example.invalid/?key=%s: %w", secretKey, errors.New("timeout"))
	got := r.SafeError(leaky)
	for e := got; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), secretKey) {
			t.Errorf("SafeError chain still holds the key: %q", e.Error())
		}
	}
	if want := "GET https://example.invalid/?key=[redacted]: timeout"; got.Error() != want {
		t.Errorf("SafeError(leaky) = %q, want %q", got.Error(), want)
	}
}

func TestRedactorServerMessage(t *testing.T) {
	r := NewRedactor(secretKey, nil)
	long := strings.Repeat("x", maxServerMessage+10)
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"   ", ""},
		{" The model is overloaded. ", ": The model is overloaded."},
		{"API key not valid: " + secretKey, ": API key not valid: [redacted]"},
		{long, ": " + long[:maxServerMessage] + "…"},
	}
	for _, tt := range tests {
		if got := r.ServerMessage(tt.in); got != tt.want {
			t.Errorf("ServerMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
