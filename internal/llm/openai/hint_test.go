package openai

import (
	"testing"
	"time"
)

func TestResponseHintWait(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		hint responseHint
		want time.Duration
	}{
		{responseHint{}, 0},
		{responseHint{retryAfter: "3"}, 3 * time.Second},
		{responseHint{retryAfterMs: "250.5", retryAfter: "1"}, 250500 * time.Microsecond},
		{responseHint{retryAfterMs: "nope", retryAfter: "2"}, 2 * time.Second},
		{responseHint{retryAfterMs: "-5"}, 0},
	}
	for _, tt := range tests {
		if got := tt.hint.wait(now); got != tt.want {
			t.Errorf("%+v.wait() = %v, want %v", tt.hint, got, tt.want)
		}
	}
}
