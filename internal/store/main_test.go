package store_test

import (
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }
