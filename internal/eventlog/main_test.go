package eventlog_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/pgtest"
)

// update rewrites golden files (read by eventtest.Golden).
var _ = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }
