package sites_test

import (
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/pgtest"
)

// The document cache's tests use a real PostgreSQL.
func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }
