package catalogtool_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"strategist/internal/catalog/catalogtool"
	"strategist/internal/catalog/offline"
	"strategist/internal/offlinetest"
	"strategist/internal/tool"
)

// loadData opens the offline catalog over the gene data once per test
// binary: loading takes seconds under -race and the catalog is read-only.
var loadData = offlinetest.Shared(offline.Open)

// dataCatalog is the offline catalog with its gene data; without the data
// the test is skipped, except under CI=true where it fails.
func dataCatalog(t *testing.T) *offline.Catalog {
	t.Helper()
	c := loadData(t)
	if err := c.DataErr(); err != nil {
		offlinetest.Missing(t, err)
	}
	return c
}

// noDataCatalog is the offline catalog without gene data: it lists and
// validates but cannot answer.
func noDataCatalog(t *testing.T) *offline.Catalog {
	t.Helper()
	c, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// call runs one tool of set by name, with JSON arguments, the way the
// agent loop does (schema validation, strict decoding).
func call(t *testing.T, set *catalogtool.Set, name, args string) (any, error) {
	t.Helper()
	ts, err := tool.NewToolset(set.Tools()...)
	if err != nil {
		t.Fatalf("NewToolset: %v", err)
	}
	tool, ok := ts.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Call(context.Background(), json.RawMessage(args))
}

// toolError asserts err is a *tool.ToolError and returns it.
func toolError(t *testing.T, err error) *tool.ToolError {
	t.Helper()
	te, ok := errors.AsType[*tool.ToolError](err)
	if !ok {
		t.Fatalf("err = %v (%T), want *tool.ToolError", err, err)
	}
	return te
}

func newSet(t *testing.T, cfg catalogtool.Config) *catalogtool.Set {
	t.Helper()
	s, err := catalogtool.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
