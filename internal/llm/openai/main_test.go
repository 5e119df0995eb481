package openai

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: a
// cancelled stream must not leave its reader running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
