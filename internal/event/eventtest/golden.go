package eventtest

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Golden compares got with the golden file at path, line by line. When the
// test binary runs with -update it writes got to path instead.
//
// The -update flag belongs to the test package (the usual
// `var update = flag.Bool("update", false, "rewrite the golden files")` in a
// _test.go file); Golden looks it up by name, so that it never collides
// with the flag a package already defines. Without such a flag the golden
// files are only read.
func Golden(t testing.TB, path string, got string) {
	t.Helper()
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("golden file %s does not exist; run the test with -update to create it", path)
		return
	}
	if err != nil {
		t.Fatalf("golden: %v", err)
		return
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("transcript differs from %s (-want +got); run with -update if the change is intended:\n%s", path, diff)
	}
}

func updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	on, _ := g.Get().(bool)
	return on
}
