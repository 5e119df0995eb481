// Package offlinetest finds the offline gene data for tests, by the one rule
// every package follows: STRATEGIST_DATA_DIR when it is set, else data/ at
// the repository root (where `make data` puts it). Without the data a test
// is skipped, except with CI=true, where it fails: CI never passes by
// skipping the gene data.
//
// It is the tests' side of the rule the server follows (offline.FindDataDir:
// STRATEGIST_DATA_DIR, else ./data); it imports nothing of Strategist, so
// every package's tests can use it, the offline catalog's own included.
package offlinetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// EnvDataDir names the setting that points at the gene data.
const EnvDataDir = "STRATEGIST_DATA_DIR"

// marker is a file every complete data directory holds.
var marker = filepath.Join("pf3d7", "GeneAnnotationPlasmoDB.txt")

// Find returns the gene data directory as an absolute path:
// STRATEGIST_DATA_DIR when set, else data/ at the root of the repository
// holding the working directory. It fails, saying where it looked, when
// that directory does not hold the data.
func Find() (string, error) {
	dir := os.Getenv(EnvDataDir)
	where := EnvDataDir + "=" + dir
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "data")
		where = dir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("offlinetest: %s: %w", where, err)
	}
	if _, err := os.Stat(filepath.Join(abs, marker)); err != nil {
		return "", fmt.Errorf("offlinetest: gene data not found (%s has no %s); run `make data` or set %s", where, marker, EnvDataDir)
	}
	return abs, nil
}

// DataDir returns Find's directory, or ends the test without it: skipped,
// or failed when CI=true.
func DataDir(tb testing.TB) string {
	tb.Helper()
	dir, err := Find()
	if err != nil {
		Missing(tb, err)
	}
	return dir
}

// Shared returns a function that gives each test load's value for the gene
// data directory (Find's), loading it once per test binary, when a test
// first asks. It is for what tests only read: the offline catalog, the
// evaluation set's reader of the raw files. Loading them costs a test
// binary built with -race a fraction of a second each time, which a
// package whose every test builds its own world pays a hundred times.
// Without the data each test that asks ends as DataDir ends it; when load
// fails, each fails.
//
//	var geneCatalog = offlinetest.Shared(offline.Open)
//	cat := geneCatalog(t)
func Shared[T any](load func(dir string) (T, error)) func(testing.TB) T {
	var (
		once    sync.Once
		v       T
		missing error
		err     error
	)
	return func(tb testing.TB) T {
		tb.Helper()
		once.Do(func() {
			var dir string
			if dir, missing = Find(); missing == nil {
				v, err = load(dir)
			}
		})
		if missing != nil {
			Missing(tb, missing)
		}
		if err != nil {
			tb.Fatalf("offlinetest: loading the gene data: %v", err)
		}
		return v
	}
}

// Missing ends a test that needs the gene data and has none, for helpers
// that load the data once per test binary: skipped, or failed when CI=true.
func Missing(tb testing.TB, why error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%v (CI=true makes missing gene data a failure)", why)
	}
	tb.Skipf("%v", why)
}

// repoRoot is the nearest directory above the working directory (or it)
// that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("offlinetest: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("offlinetest: no go.mod above the working directory; set " + EnvDataDir)
		}
		dir = parent
	}
}
