package sites

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/catalog/wdk"
)

func TestClassify(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	tests := []struct {
		name  string
		err   error
		kind  catalog.SiteErrorKind
		says  string
		retry time.Duration
	}{
		{"no key", &wdk.MissingTokenError{Site: "plasmodb-live"}, catalog.SiteAccount, "no VEuPathDB API key is stored for PlasmoDB (plasmodb-live)", 0},
		{"revoked", fmt.Errorf("wdk: x: %w", &wdk.AuthError{Status: 401, Message: "Invalid token"}), catalog.SiteAccount, "refused your VEuPathDB API key (HTTP 401)", 0},
		{"guest", &wdk.AuthError{Guest: true}, catalog.SiteAccount, "guest session", 0},
		{"down", &wdk.ServerError{Err: refused, Attempts: 4}, catalog.SiteUnavailable, "cannot be reached (connection refused); it may be down, try again later", 0},
		{"down, retry after", &wdk.ServerError{Err: refused, RetryAfter: 5 * time.Second}, catalog.SiteUnavailable, "cannot be reached (connection refused); it may be down, try again in 5s", 5 * time.Second},
		{"429", &wdk.ServerError{Status: 429, RetryAfter: 40 * time.Second}, catalog.SiteUnavailable, "HTTP 429); try again in 40s", 40 * time.Second},
		{"504", &wdk.ServerError{Status: 504}, catalog.SiteUnavailable, "unavailable (HTTP 504)", 0},
		{"500", &wdk.ServerError{Status: 500, Message: "NullPointerException", LogMarker: "abc"}, catalog.SiteFault, "HTTP 500: NullPointerException); VEuPathDB support can trace it with log marker abc", 0},
		{"400", &wdk.RequestError{Status: 400, Message: "bad"}, catalog.SiteFault, "refused the request (HTTP 400: bad)", 0},
		{"delayed", &wdk.DelayedError{Attempts: 8}, catalog.SiteUnavailable, "still computing", 0},
		{"timeout", &TimeoutError{Site: "plasmodb-live", After: 8 * time.Second}, catalog.SiteUnavailable, "did not answer within 8s", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify("PlasmoDB", "plasmodb-live", tt.err)
			se, ok := errors.AsType[*catalog.SiteError](err)
			if !ok || se.Kind != tt.kind || !strings.Contains(se.Message, tt.says) || se.RetryAfter != tt.retry || strings.Contains(se.Message, "later later") {
				t.Fatalf("classify = %#v, want %s saying %q", err, tt.kind, tt.says)
			}
			if errors.Is(err, catalog.ErrUnavailable) != (tt.kind == catalog.SiteUnavailable) {
				t.Errorf("ErrUnavailable match = %v for %s", errors.Is(err, catalog.ErrUnavailable), tt.kind)
			}
			if !errors.Is(err, tt.err) {
				t.Error("the client's error is lost")
			}
		})
	}
	for _, err := range []error{context.Canceled, &catalog.ValidationError{Search: "x"}, fmt.Errorf("x: %w", catalog.ErrNotFound)} {
		if got := classify("PlasmoDB", "plasmodb-live", err); got != err {
			t.Errorf("classify(%v) = %v, want it unchanged", err, got)
		}
	}
}
