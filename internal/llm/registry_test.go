package llm_test

import (
	"context"
	"errors"
	"io/fs"
	"iter"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
)

// fakeEngine is a named engine so tests can tell which one Resolve returned.
type fakeEngine struct{ name string }

func (f *fakeEngine) Stream(context.Context, llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(func(llm.Chunk, error) bool) {}
}

func engineOf(name string) func() (llm.Engine, error) {
	return func() (llm.Engine, error) { return &fakeEngine{name: name}, nil }
}

func scripts() llm.ScriptedConfig {
	return llm.ScriptedConfig{
		Enabled: true,
		Files: fstest.MapFS{
			"delegation.json":   {Data: []byte(`{}`)},
			"sub/failure.json":  {Data: []byte(`{}`)},
			"notes.txt":         {Data: []byte(`not a script`)},
			"broken/other.json": {Data: []byte(`{}`)},
		},
		New: func(_ fs.FS, name string) (llm.Engine, error) {
			if name == "broken/other.json" {
				return nil, errors.New("bad script")
			}
			return &fakeEngine{name: "scripted " + name}, nil
		},
	}
}

func fullConfig() llm.RegistryConfig {
	return llm.RegistryConfig{
		Gemini:   llm.HostedConfig{Enabled: true, Models: []string{"gemini-2.5-flash", "gemini-2.5-pro"}, New: engineOf("gemini")},
		OpenAI:   llm.HostedConfig{Enabled: true, Models: []string{"llama3.1"}, AcceptUnlisted: true, New: engineOf("openai")},
		Scripted: scripts(),
		Offline:  engineOf("offline"),
	}
}

func TestRegistryModels(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.RegistryConfig
		want llm.ModelList
	}{
		{
			name: "offline only",
			cfg:  llm.RegistryConfig{Offline: engineOf("offline")},
			want: llm.ModelList{Default: "offline", Models: []llm.ModelInfo{
				{ID: "offline", Engine: "offline", DisplayName: "Offline planner (not a language model)", Default: true},
			}},
		},
		{
			name: "everything configured, gemini first",
			cfg:  fullConfig(),
			want: llm.ModelList{Default: "gemini:gemini-2.5-flash", Models: []llm.ModelInfo{
				{ID: "gemini:gemini-2.5-flash", Engine: "gemini", DisplayName: "Gemini gemini-2.5-flash", Default: true},
				{ID: "gemini:gemini-2.5-pro", Engine: "gemini", DisplayName: "Gemini gemini-2.5-pro"},
				{ID: "openai:llama3.1", Engine: "openai", DisplayName: "llama3.1 (OpenAI-compatible)"},
				{ID: "scripted:broken/other.json", Engine: "scripted", DisplayName: "Scripted: broken/other.json"},
				{ID: "scripted:delegation.json", Engine: "scripted", DisplayName: "Scripted: delegation.json"},
				{ID: "scripted:sub/failure.json", Engine: "scripted", DisplayName: "Scripted: sub/failure.json"},
				{ID: "offline", Engine: "offline", DisplayName: "Offline planner (not a language model)"},
			}},
		},
		{
			name: "openai only, unlisted default shown first",
			cfg: llm.RegistryConfig{
				Default: "openai:qwen3:8b",
				OpenAI:  llm.HostedConfig{Enabled: true, Models: []string{"llama3.1"}, AcceptUnlisted: true, New: engineOf("openai")},
				Offline: engineOf("offline"),
			},
			want: llm.ModelList{Default: "openai:qwen3:8b", Models: []llm.ModelInfo{
				{ID: "openai:qwen3:8b", Engine: "openai", DisplayName: "qwen3:8b", Default: true},
				{ID: "openai:llama3.1", Engine: "openai", DisplayName: "llama3.1 (OpenAI-compatible)"},
				{ID: "offline", Engine: "offline", DisplayName: "Offline planner (not a language model)"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := llm.NewRegistry(tt.cfg)
			if err != nil {
				t.Fatalf("NewRegistry: %v", err)
			}
			if diff := cmp.Diff(tt.want, r.Models()); diff != "" {
				t.Errorf("Models() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegistryResolve(t *testing.T) {
	r, err := llm.NewRegistry(fullConfig())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id         string
		wantEngine string
		wantName   string
		wantReason string // non-empty: an *UnknownModelError with this reason
	}{
		{id: "", wantEngine: "gemini", wantName: "gemini-2.5-flash"},
		{id: "gemini:gemini-2.5-pro", wantEngine: "gemini", wantName: "gemini-2.5-pro"},
		{id: "openai:llama3.1", wantEngine: "openai", wantName: "llama3.1"},
		{id: "openai:qwen3:8b", wantEngine: "openai", wantName: "qwen3:8b"},
		{id: "offline", wantEngine: "offline"},
		{id: "scripted:delegation.json", wantEngine: "scripted delegation.json", wantName: "delegation.json"},
		{id: "scripted:sub/failure.json", wantEngine: "scripted sub/failure.json", wantName: "sub/failure.json"},
		{id: "gemini:gemini-1.0", wantReason: "model not offered"},
		{id: "gemini:", wantReason: "missing model name"},
		{id: "offline:x", wantReason: "the offline engine takes no model name"},
		{id: "claude:opus", wantReason: `unknown engine "claude"`},
		{id: "scripted:../etc/passwd.json", wantReason: "a script is a .json file name inside the scripts directory"},
		{id: "scripted:/abs.json", wantReason: "a script is a .json file name inside the scripts directory"},
		{id: "scripted:notes.txt", wantReason: "a script is a .json file name inside the scripts directory"},
		{id: "scripted:missing.json", wantReason: "no such script"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			m, err := r.Resolve(tt.id)
			if tt.wantReason != "" {
				ume, ok := errors.AsType[*llm.UnknownModelError](err)
				if !ok {
					t.Fatalf("Resolve(%q) error = %v, want *UnknownModelError", tt.id, err)
				}
				if !errors.Is(err, llm.ErrUnknownModel) {
					t.Errorf("errors.Is(err, ErrUnknownModel) = false")
				}
				if ume.Reason != tt.wantReason {
					t.Errorf("Reason = %q, want %q", ume.Reason, tt.wantReason)
				}
				if len(ume.Valid) != 7 || ume.Valid[0] != "gemini:gemini-2.5-flash" {
					t.Errorf("Valid = %v, want the 7 listed ids", ume.Valid)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.id, err)
			}
			if got := m.Engine.(*fakeEngine).name; got != tt.wantEngine {
				t.Errorf("engine = %q, want %q", got, tt.wantEngine)
			}
			if m.Name != tt.wantName {
				t.Errorf("Name = %q, want %q", m.Name, tt.wantName)
			}
		})
	}
}

func TestRegistryScriptedEngineIsKept(t *testing.T) {
	loads := 0
	cfg := llm.RegistryConfig{Offline: engineOf("offline"), Scripted: scripts()}
	inner := cfg.Scripted.New
	cfg.Scripted.New = func(fsys fs.FS, name string) (llm.Engine, error) {
		loads++
		return inner(fsys, name)
	}
	r, err := llm.NewRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Resolve("scripted:delegation.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Resolve("scripted:delegation.json")
	if err != nil {
		t.Fatal(err)
	}
	if a.Engine != b.Engine || loads != 1 {
		t.Errorf("script loaded %d times (same engine: %v), want once", loads, a.Engine == b.Engine)
	}
	if _, err := r.Resolve("scripted:broken/other.json"); err == nil || errors.Is(err, llm.ErrUnknownModel) {
		t.Errorf("Resolve(broken script) error = %v, want a load error", err)
	}
}

func TestNewRegistryErrors(t *testing.T) {
	failing := func() (llm.Engine, error) { return nil, errors.New("no key") }
	tests := []struct {
		name string
		cfg  llm.RegistryConfig
	}{
		{name: "no offline", cfg: llm.RegistryConfig{}},
		{name: "gemini without models", cfg: llm.RegistryConfig{Offline: engineOf("offline"),
			Gemini: llm.HostedConfig{Enabled: true, New: engineOf("gemini")}}},
		{name: "gemini without constructor", cfg: llm.RegistryConfig{Offline: engineOf("offline"),
			Gemini: llm.HostedConfig{Enabled: true, Models: []string{"m"}}}},
		{name: "constructor fails", cfg: llm.RegistryConfig{Offline: engineOf("offline"),
			OpenAI: llm.HostedConfig{Enabled: true, Models: []string{"m"}, New: failing}}},
		{name: "unknown default", cfg: llm.RegistryConfig{Offline: engineOf("offline"), Default: "gemini:x"}},
		{name: "scripted without files", cfg: llm.RegistryConfig{Offline: engineOf("offline"),
			Scripted: llm.ScriptedConfig{Enabled: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := llm.NewRegistry(tt.cfg); err == nil {
				t.Error("NewRegistry succeeded, want an error")
			}
		})
	}
}

func TestParseModelID(t *testing.T) {
	tests := []struct{ id, family, name string }{
		{"gemini:gemini-2.5-flash", "gemini", "gemini-2.5-flash"},
		{"openai:qwen3:8b", "openai", "qwen3:8b"},
		{"offline", "offline", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		f, n := llm.ParseModelID(tt.id)
		if f != tt.family || n != tt.name {
			t.Errorf("ParseModelID(%q) = %q, %q; want %q, %q", tt.id, f, n, tt.family, tt.name)
		}
	}
}
