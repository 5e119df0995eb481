package catalogtool_test

import (
	"errors"
	"testing"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtool"
	"strategist/internal/tool"
)

func TestToolErrorOfALiveSite(t *testing.T) {
	tests := []struct {
		kind catalog.SiteErrorKind
		code string
	}{
		{catalog.SiteAccount, catalogtool.CodeSiteAccount},
		{catalog.SiteUnavailable, catalogtool.CodeUnavailable},
		{catalog.SiteFault, catalogtool.CodeSiteError},
	}
	for _, tt := range tests {
		err := catalogtool.ToolError("count", &catalog.SiteError{Site: "toxodb-live", Kind: tt.kind, Message: "what to do", RetryAfter: 30 * time.Second})
		te, ok := errors.AsType[*tool.ToolError](err)
		if !ok || te.Code != tt.code || te.Message != "what to do" {
			t.Errorf("%s: tool error = %#v, want %s", tt.kind, err, tt.code)
			continue
		}
		if d := te.Details; d["site"] != "toxodb-live" || d["retryAfterSeconds"] != 30 {
			t.Errorf("%s: details = %v", tt.kind, te.Details)
		}
	}
}
