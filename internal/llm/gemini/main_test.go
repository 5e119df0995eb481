package gemini

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: a
// cancelled stream must not leave its reader running. The opencensus worker
// is started by that library's init (pulled in by the SDK's auth
// dependencies), not by any call of ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}
