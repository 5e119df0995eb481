package offlinetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes a repository with go.mod and, when withData, data/pf3d7/ with
// the marker file; it returns the root.
func tree(t *testing.T, withData bool) string {
	t.Helper()
	root := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "go.mod"))
	write(filepath.Join(root, "internal", "pkg", "x.go"))
	if withData {
		write(filepath.Join(root, "data", marker))
	}
	return root
}

func TestFindRepositoryData(t *testing.T) {
	root := tree(t, true)
	t.Setenv(EnvDataDir, "")
	t.Chdir(filepath.Join(root, "internal", "pkg"))
	got, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(root, "data"))
	if got, _ := filepath.EvalSymlinks(got); got != want {
		t.Errorf("Find() = %q, want %q", got, want)
	}
}

func TestFindSettingWins(t *testing.T) {
	elsewhere := tree(t, true)
	t.Chdir(tree(t, false))
	t.Setenv(EnvDataDir, filepath.Join(elsewhere, "data"))
	if got, err := Find(); err != nil || got != filepath.Join(elsewhere, "data") {
		t.Errorf("Find() = %q, %v; want the setting's directory", got, err)
	}
	// A setting naming a directory without the data is not overruled by
	// data/ at the root: the researcher asked for that directory.
	t.Chdir(elsewhere)
	t.Setenv(EnvDataDir, t.TempDir())
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), EnvDataDir+"=") {
		t.Errorf("Find() with an empty %s = %v, want an error naming the setting", EnvDataDir, err)
	}
}

func TestFindMissing(t *testing.T) {
	root := tree(t, false)
	t.Setenv(EnvDataDir, "")
	t.Chdir(root)
	_, err := Find()
	if err == nil || !strings.Contains(err.Error(), "make data") {
		t.Errorf("Find() without data = %v, want an error saying to run make data", err)
	}
}

func TestSharedLoadsOnce(t *testing.T) {
	dir := filepath.Join(tree(t, true), "data")
	t.Setenv(EnvDataDir, dir)
	loads := 0
	get := Shared(func(d string) (string, error) { loads++; return "loaded from " + d, nil })
	for range 3 {
		if got := get(t); got != "loaded from "+dir {
			t.Errorf("Shared()(t) = %q, want the value loaded from %s", got, dir)
		}
	}
	if loads != 1 {
		t.Errorf("loaded %d times, want once", loads)
	}
}

func TestSharedWithoutData(t *testing.T) {
	t.Setenv(EnvDataDir, t.TempDir())
	t.Setenv("CI", "")
	loads := 0
	get := Shared(func(string) (int, error) { loads++; return 1, nil })
	reached := false
	t.Run("needs the data", func(t *testing.T) {
		get(t)
		reached = true
	})
	if reached || loads != 0 {
		t.Errorf("without the data: test went on = %v, loads = %d; want it skipped before loading", reached, loads)
	}
}
