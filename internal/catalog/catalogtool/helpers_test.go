package catalogtool_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/catalog/catalogtool"
	"strategist/internal/catalog/offline"
)

// loadData reads the gene data once per test binary: loading takes
// seconds and the catalog is read-only.
var loadData = sync.OnceValues(func() (*offline.Catalog, error) {
	dir, ok := findDataDir()
	if !ok {
		return nil, nil
	}
	return offline.Open(dir)
})

// findDataDir looks where the tests promise: STRATEGIST_DATA_DIR, else
// data/ at the repository root, else ../shared/data beside it.
func findDataDir() (string, bool) {
	if dir := os.Getenv("STRATEGIST_DATA_DIR"); dir != "" {
		return dir, true
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	for _, d := range []string{filepath.Join(dir, "data"), filepath.Join(dir, "..", "shared", "data")} {
		if _, err := os.Stat(filepath.Join(d, offline.FileGeneAnnotation)); err == nil {
			return d, true
		}
	}
	return "", false
}

// dataCatalog is the offline catalog with its gene data; without the data
// the test is skipped, except under CI=true where it fails.
func dataCatalog(t *testing.T) *offline.Catalog {
	t.Helper()
	c, err := loadData()
	if err != nil {
		t.Fatalf("load offline catalog: %v", err)
	}
	if c == nil || c.DataErr() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gene data not found (STRATEGIST_DATA_DIR, data/, ../shared/data); run `make data`")
		}
		t.Skip("gene data not found; run `make data` to run this test")
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
	ts, err := agent.NewToolset(set.Tools()...)
	if err != nil {
		t.Fatalf("NewToolset: %v", err)
	}
	tool, ok := ts.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Call(context.Background(), json.RawMessage(args))
}

// toolError asserts err is a *agent.ToolError and returns it.
func toolError(t *testing.T, err error) *agent.ToolError {
	t.Helper()
	te, ok := errors.AsType[*agent.ToolError](err)
	if !ok {
		t.Fatalf("err = %v (%T), want *agent.ToolError", err, err)
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
