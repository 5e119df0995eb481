package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportDirection keeps the layering without anyone having to remember
// it: imports flow server -> chat -> planner|executor -> subagent -> agent
// -> llm, so each layer can be tested with fakes of the one below and none
// reaches back up; only the store (and the test database helper) touches
// pgx, so SQL and its errors live in one package; the request parser uses
// the standard library only, and the plan model imports nothing of
// Strategist but the strategy types. docs/architecture.md explains the layers.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "strategist/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// rank: a package may import only packages of a lower rank among these.
	rank := map[string]int{
		"strategist/internal/server":   8,
		"strategist/internal/chat":     7,
		"strategist/internal/planner":  6,
		"strategist/internal/executor": 6,
		"strategist/internal/subagent": 5,
		"strategist/internal/agent":    4,
		"strategist/internal/tool":     3,
		"strategist/internal/llm":      2,
	}
	layered := func(p string) (int, bool) {
		for prefix, r := range rank {
			if p == prefix || strings.HasPrefix(p, prefix+"/") {
				return r, true
			}
		}
		return 0, false
	}
	pgxAllowed := []string{"strategist/internal/store", "strategist/internal/pgtest"}
	// The plan model is shared by every role, the rules engine and the
	// browser's view: it may use the strategy types, never the store, the
	// event stream or the agent layers.
	planImports := []string{"strategist/internal/strategy"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		if pkg == "strategist/internal/plan" {
			for _, imp := range imports {
				if strings.HasPrefix(imp, "strategist/") && !slices.Contains(planImports, imp) {
					t.Errorf("%s imports %s: the plan model sits low and uses only %v of Strategist", pkg, imp, planImports)
				}
			}
		}
		if pkg == "strategist/internal/english" {
			for _, imp := range imports {
				if strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") || strings.HasPrefix(imp, "strategist/") {
					t.Errorf("%s imports %s: the request parser uses the standard library only", pkg, imp)
				}
			}
		}
		from, fromLayered := layered(pkg)
		for _, imp := range imports {
			if strings.HasPrefix(imp, "github.com/jackc/pgx") && !slices.Contains(pgxAllowed, pkg) {
				t.Errorf("%s imports %s: only the store talks to PostgreSQL", pkg, imp)
			}
			if imp == "strategist/cmd/server" {
				t.Errorf("%s imports the main package", pkg)
			}
			to, toLayered := layered(imp)
			if fromLayered && toLayered && to >= from && !sameLayer(pkg, imp) {
				t.Errorf("%s imports %s: imports flow server -> chat -> planner|executor -> subagent -> agent -> tool -> llm", pkg, imp)
			}
			if !fromLayered && toLayered && strings.HasPrefix(pkg, "strategist/internal/") && !lowerDomain(pkg) {
				t.Errorf("%s (a domain package) imports %s", pkg, imp)
			}
		}
	}
}

// sameLayer allows a layer's sub-packages to import its root (llm/gemini
// imports llm).
func sameLayer(pkg, imp string) bool { return strings.HasPrefix(pkg, imp+"/") }

// lowerDomain lists the packages outside the agent layers that may use
// them: the tool packages offering catalog and graph to agents, the event
// package (Usage carries llm.Usage), and test helpers.
func lowerDomain(pkg string) bool {
	for _, p := range []string{
		"strategist/internal/catalog/catalogtool", "strategist/internal/strategy/graphtool",
		"strategist/internal/event", "strategist/web",
	} {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// TestEventsWithoutStorage: the packages that only speak events (the
// stream contract, the agent loop, the engines, the stream client and its
// checker) reach neither the store nor PostgreSQL, even through what they
// import; storage and transport of events live in internal/eventlog.
func TestEventsWithoutStorage(t *testing.T) {
	pkgs := []string{
		"strategist/internal/event", "strategist/internal/event/eventtest", "strategist/internal/event/sseclient",
		"strategist/internal/agent", "strategist/internal/llm", "strategist/internal/llm/gemini",
		"strategist/internal/llm/openai", "strategist/internal/llm/scripted", "strategist/internal/english",
	}
	out, err := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, dep := range fields[1:] {
			if dep == "strategist/internal/store" || dep == "strategist/internal/eventlog" || strings.HasPrefix(dep, "github.com/jackc/pgx") {
				t.Errorf("%s reaches %s: packages that only speak events stay off storage", fields[0], dep)
			}
		}
	}
}
