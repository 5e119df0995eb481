package eventtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
)

func TestMaskGolden(t *testing.T) {
	eventtest.Golden(t, filepath.Join("testdata", "good.golden"), eventtest.Mask(goodTranscript()))
}

func TestMask(t *testing.T) {
	recs := []event.Record{
		{Type: "turn_start", Payload: []byte(`{"turnId":"t-9","mode":"plan","model":"m","userMessageId":"u1"}`)},
		{Type: "handoff_accepted", Payload: []byte(`{"turnId":"t-9","handoffId":"h","executeTurnId":"t-10"}`)},
		{Type: "artifact_saved", Payload: []byte(`{"turnId":"t-9","artifact":{"id":"art","kind":"planning","version":3}}`)},
		{Type: "tool_call_end", Payload: []byte(`{"turnId":"t-10","callId":"c","ok":true,"durationMs":17,"result":{"stepId":"s1","at":"2026-01-02T03:04:05.123Z","ref":"0f0e0d0c-0000-4000-8000-000000000001","html":"<b>&</b>"}}`)},
		{Type: "usage", Payload: []byte(`{"turnId":"t-10","scope":"main","promptTokens":5,"completionTokens":6,"totalTokens":11}`)},
		{Type: "turn_end", Payload: []byte(`not json`)},
	}
	want := strings.Join([]string{
		`turn_start {"mode":"plan","model":"m","turnId":"<turn1>","userMessageId":"<msg1>"}`,
		`handoff_accepted {"executeTurnId":"<turn2>","handoffId":"<handoff1>","turnId":"<turn1>"}`,
		`artifact_saved {"artifact":{"id":"<artifact1>","kind":"planning","version":3},"turnId":"<turn1>"}`,
		`tool_call_end {"callId":"<call1>","durationMs":"<ms>","ok":true,"result":{"at":"<time>","html":"<b>&</b>","ref":"<id1>","stepId":"s1"},"turnId":"<turn2>"}`,
		`usage {"completionTokens":"<tokens>","promptTokens":"<tokens>","scope":"main","totalTokens":"<tokens>","turnId":"<turn2>"}`,
		`turn_end <undecodable payload: invalid character 'o' in literal null (expecting 'u')>`,
		``,
	}, "\n")
	if diff := cmp.Diff(want, eventtest.Mask(recs)); diff != "" {
		t.Errorf("Mask() mismatch (-want +got):\n%s", diff)
	}
}

// fakeTB records what Golden reports.
type fakeTB struct {
	testing.TB
	errors, fatals []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
}

func TestGoldenReports(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")

	missing := &fakeTB{TB: t}
	eventtest.Golden(missing, path, "a\n")
	if len(missing.fatals) != 1 || !strings.Contains(missing.fatals[0], "-update") {
		t.Errorf("missing golden file reported %q, want a hint to run with -update", missing.fatals)
	}

	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	same := &fakeTB{TB: t}
	eventtest.Golden(same, path, "a\nb\n")
	if len(same.errors)+len(same.fatals) != 0 {
		t.Errorf("equal transcript reported %q %q", same.errors, same.fatals)
	}
	differs := &fakeTB{TB: t}
	eventtest.Golden(differs, path, "a\nc\n")
	if len(differs.errors) != 1 || !strings.Contains(differs.errors[0], `"c"`) {
		t.Errorf("different transcript reported %q, want one diff", differs.errors)
	}
}
