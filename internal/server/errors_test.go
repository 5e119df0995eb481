package server

import (
	"fmt"
	"net/http"
	"testing"

	"strategist/internal/store"
)

// TestInvalidTextFromTheStoreIs400: text the input check missed and
// PostgreSQL refused (SQLSTATE 22021) is the caller's error, a 400 with
// the input check's code, not a 500.
func TestInvalidTextFromTheStoreIs400(t *testing.T) {
	ae := toAPIError(fmt.Errorf("rename: %w", fmt.Errorf("store: rename conversation: %w", store.ErrInvalidText)))
	if ae.Status != http.StatusBadRequest || ae.Code != CodeInvalidText {
		t.Errorf("toAPIError(ErrInvalidText) = %d %s, want 400 %s", ae.Status, ae.Code, CodeInvalidText)
	}
}
