package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layers ranks every package of the module, lowest first: a package may
// import only packages of a lower layer, so every import runs downhill and
// each layer can be tested with fakes of those below it. A new package
// must be placed here (TestImportDirection fails on an unranked one).
// docs/architecture.md draws the same map.
var layers = [][]string{
	// 0. Foundations: nothing of Strategist. The request parser is the
	// standard library only; catalog is the vocabulary both catalogs speak.
	{"internal/english", "internal/catalog", "internal/config", "internal/seal", "internal/telemetry",
		"migrations", "internal/proctest", "internal/offlinetest"},
	// 1. Models: the engine interface, the strategy graph, the catalog's
	// ranking and enrichment.
	{"internal/llm", "internal/strategy", "internal/catalog/enrich", "internal/catalog/rank"},
	// 2. Contracts and adapters over the models: the stream's events, the
	// tool contract, the plan model, the hosted and scripted engines, the
	// two catalogs and their test doubles.
	{"internal/event", "internal/tool", "internal/plan",
		"internal/llm/gemini", "internal/llm/openai", "internal/llm/scripted", "internal/llm/llmtest",
		"internal/catalog/offline", "internal/catalog/wdk", "internal/catalog/wdk/wdkfake", "internal/catalog/catalogtest",
		"internal/strategy/strategytest"},
	// 3. Engines and stream users that need no database (the offline
	// engine, the tool-calling loop, the catalog tools, the browser's view
	// model, the stream client), and the store, the one package of SQL.
	{"internal/rules", "internal/agent", "internal/catalog/catalogtool", "web/view",
		"internal/event/eventtest", "internal/event/sseclient", "internal/acp", "internal/store"},
	// 4. Services over the store: accounts, the event log, stored
	// strategies, gene lists; the pages; the evaluation client; tests'
	// database.
	{"internal/account", "internal/eventlog", "internal/strategies", "internal/genelist", "web", "internal/eval", "internal/pgtest"},
	// 5. Application services: the site registry, the graph tools,
	// delegations.
	{"internal/sites", "internal/strategies/graphtool", "internal/subagent"},
	// 6. The roles.
	{"internal/planner", "internal/executor"},
	// 7. The orchestrator.
	{"internal/chat"},
	// 8. What the HTTP server and the agent protocols share: API errors,
	// input checks, a protocol's routes and messages.
	{"internal/protocol"},
	// 9. HTTP: the server (pages, JSON API, SSE, auth, routes) and the
	// agent protocols it mounts, each over a host interface of its own,
	// with the one fake of that host their tests run on.
	{"internal/server", "internal/protocol/a2a", "internal/protocol/agui", "internal/protocol/mcp", "internal/protocol/openai",
		"internal/protocol/protocoltest"},
	// 10. Commands and whole-system tests.
	{"cmd/server", "cmd/wdkfake", "tests/security", "tools/benchtable"},
}

// noDatabase are the packages that link neither the store nor the event
// log nor PostgreSQL or River, even through what they import: the plan
// model, the graph model, the offline engine, the browser's view model,
// the evaluation client and the request parser, and with them the stream
// contract, the tool contract, the agent loop, the engines and the
// catalogs. Storage lives above them, so each can be used and tested alone.
var noDatabase = []string{
	"internal/plan", "internal/strategy", "internal/rules", "web/view", "internal/eval", "internal/english",
	"internal/event", "internal/event/eventtest", "internal/event/sseclient", "internal/tool", "internal/agent",
	"internal/llm", "internal/llm/gemini", "internal/llm/openai", "internal/llm/scripted",
	"internal/catalog", "internal/catalog/offline", "internal/catalog/wdk", "internal/catalog/catalogtool",
	"web",
}

// modulePackages lists the module's packages with their direct imports.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "strategist/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkgs[fields[0]] = fields[1:]
	}
	return pkgs
}

// TestImportDirection keeps the layering without anyone having to remember
// it: every package is ranked in layers and imports only lower layers;
// only the store (and the tests' database helper) imports pgx, so SQL and
// its errors live in one package; the request parser uses the standard
// library only; the plan model imports nothing of Strategist but the graph
// model; the tool contract nothing but the engine interface.
func TestImportDirection(t *testing.T) {
	rank := map[string]int{}
	for i, layer := range layers {
		for _, p := range layer {
			if _, dup := rank["strategist/"+p]; dup {
				t.Errorf("%s is ranked twice", p)
			}
			rank["strategist/"+p] = i
		}
	}
	only := map[string][]string{
		"strategist/internal/plan":    {"strategist/internal/strategy"},
		"strategist/internal/tool":    {"strategist/internal/llm"},
		"strategist/internal/english": {},
	}
	pkgs := modulePackages(t)
	for p := range rank {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("%s is ranked but is no package of the module: remove it from layers", p)
		}
	}
	for pkg, imports := range pkgs {
		from, ok := rank[pkg]
		if !ok {
			t.Errorf("%s has no layer: rank it in layers (cmd/server/imports_test.go) and docs/architecture.md", pkg)
			continue
		}
		for _, imp := range imports {
			if strings.HasPrefix(imp, "github.com/jackc/pgx") && pkg != "strategist/internal/store" && pkg != "strategist/internal/pgtest" {
				t.Errorf("%s imports %s: only the store talks to PostgreSQL", pkg, imp)
			}
			if allowed, ok := only[pkg]; ok && strings.HasPrefix(imp, "strategist/") && !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s: it uses only %v of Strategist", pkg, imp, allowed)
			}
			if pkg == "strategist/internal/english" && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
				t.Errorf("%s imports %s: the request parser uses the standard library only", pkg, imp)
			}
			to, ok := rank[imp]
			if !ok {
				continue // not of the module
			}
			if to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports run to lower layers only", pkg, from, imp, to)
			}
		}
	}
}

// TestNoDatabaseBelowStorage: the packages of noDatabase reach neither the
// store, the event log, pgx nor River, even through what they import
// (go list -deps).
func TestNoDatabaseBelowStorage(t *testing.T) {
	args := []string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}
	for _, p := range noDatabase {
		args = append(args, "strategist/"+p)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, dep := range fields[1:] {
			if dep == "strategist/internal/store" || dep == "strategist/internal/eventlog" ||
				strings.HasPrefix(dep, "github.com/jackc/pgx") || strings.HasPrefix(dep, "github.com/riverqueue/") {
				t.Errorf("%s reaches %s: it stays off storage", fields[0], dep)
				break // one is enough to say so
			}
		}
	}
}

// protocolSDKs are the agent protocols' SDKs: only their protocol
// packages link them, the server (which mounts them) does not.
var protocolSDKs = []string{"github.com/modelcontextprotocol/", "github.com/a2aproject/"}

// TestServerLinksNoProtocolSDK: internal/server reaches no protocol SDK,
// even through what it imports (go list -deps); main wires the protocol
// packages into it (Config.Protocols).
func TestServerLinksNoProtocolSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "strategist/internal/server").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for dep := range strings.FieldsSeq(string(out)) {
		for _, sdk := range protocolSDKs {
			if strings.HasPrefix(dep, sdk) {
				t.Errorf("internal/server reaches %s: a protocol's SDK belongs to its package under internal/protocol", dep)
			}
		}
	}
}

// TestRaceFreePackages: the packages make test-go runs without the race
// detector (the Makefile's RACE_FREE) start no goroutine and import
// neither sync nor sync/atomic in their own code, so there is no race in
// them for the detector to find.
func TestRaceFreePackages(t *testing.T) {
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RACE_FREE := (.+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile has no RACE_FREE line")
	}
	for dir := range strings.FieldsSeq(string(m[1])) {
		files, err := filepath.Glob(filepath.Join("../..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if p := strings.Trim(imp.Path.Value, `"`); p == "sync" || p == "sync/atomic" {
					t.Errorf("%s imports %s: take its package out of RACE_FREE", name, p)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if _, ok := n.(*ast.GoStmt); ok {
					t.Errorf("%s starts a goroutine: take its package out of RACE_FREE", name)
				}
				return true
			})
		}
	}
}
