package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/config"
	"strategist/internal/eval"
	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/event/sseclient"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/strategy"
)

// The acceptance scenario of the offline engine, over the real HTTP API and
// SSE stream, a real Postgres and the offline catalog with its data.
const acceptanceRequest = "Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14"

func TestOfflineAcceptance(t *testing.T) {
	t.Parallel()
	srv := startOffline(t)
	data := loadGeneData(t)
	first := srv.scenario(t, acceptanceRequest)
	eventtest.Check(t, first.all())

	// The plan turn: catalog tool calls, both artifacts, the handoff.
	var calls []string
	for _, r := range first.plan {
		if r.Type == "tool_call_start" {
			calls = append(calls, field[string](t, r, "name"))
		}
	}
	for _, want := range []string{"search_for_searches", "get_search_parameters"} {
		if !slices.Contains(calls, want) {
			t.Errorf("the plan turn never called %s: %v", want, calls)
		}
	}
	if got := first.draftTree(t); got != "MINUS(UNION(GenesByGoTerm GO:0006260, GenesByGoTerm GO:0006281), GenesByLocation Pf3D7_14_v3)" {
		t.Errorf("delegation draft = %s", got)
	}
	if !first.has(t, "planning") {
		t.Error("no artifact_saved planning artifact")
	}

	// The execute turn: the plan, the two GO tasks at once, every task done,
	// snapshots, and the counts.
	nodes := records(first.exec, "subagent_plan")
	if len(nodes) != 1 {
		t.Fatalf("%d subagent_plan events", len(nodes))
	}
	var plan event.SubagentPlan
	decode(t, nodes[0], &plan)
	kinds := map[string]int{}
	goNodes := map[string]string{}
	for _, n := range plan.Nodes {
		kinds[n.Kind]++
		for _, id := range []string{"GO:0006260", "GO:0006281"} {
			if strings.Contains(n.Label, id) {
				goNodes[id] = n.ID
			}
		}
	}
	if kinds["task"] != 3 || kinds["combine"] != 2 || len(goNodes) != 2 {
		t.Errorf("plan nodes = %+v", plan.Nodes)
	}
	firstEnd, starts := -1, map[string]int{}
	for i, r := range first.exec {
		switch r.Type {
		case "subagent_task_start":
			starts[field[string](t, r, "nodeId")] = i
		case "subagent_task_end":
			if firstEnd < 0 && (field[string](t, r, "nodeId") == goNodes["GO:0006260"] || field[string](t, r, "nodeId") == goNodes["GO:0006281"]) {
				firstEnd = i
			}
			if s := field[event.NodeStatus](t, r, "status"); s != event.NodeDone {
				t.Errorf("node %s ended %s", field[string](t, r, "nodeId"), s)
			}
		}
	}
	for _, id := range goNodes {
		if s, ok := starts[id]; !ok || s > firstEnd {
			t.Errorf("GO task %s started at %d, after the first GO task ended at %d: they did not run concurrently", id, s, firstEnd)
		}
	}
	if len(records(first.exec, "graph_snapshot")) == 0 {
		t.Error("no graph_snapshot in the execute turn")
	}
	checkAcceptanceRequirements(t, data, first)
	want := eval.Minus(eval.Union(data.GO("GO:0006260"), data.GO("GO:0006281")), data.On("Pf3D7_14_v3"))
	root, union := first.strategy.count(first.strategy.RootStepID), first.strategy.count(first.strategy.find(strategy.Union))
	if root != 89 || root != len(want) || union != 108 {
		t.Errorf("root count %d (raw data %d, README example 89), union count %d (README example 108)", root, len(want), union)
	}
	// The root's genes download whole, the same set the raw files give.
	for _, format := range []string{"tsv", "csv", "json", "ids"} {
		got := srv.download(t, first.conv, string(first.strategy.RootStepID), format)
		if !maps.Equal(got, map[string]bool(want)) {
			t.Errorf("%s download: %d genes, want the %d of the raw data", format, len(got), len(want))
		}
	}
	srv.call(t, http.MethodGet, "/api/v1/conversations/"+first.conv+"/strategy/steps/"+string(first.strategy.RootStepID)+"/results?format=xml", nil, nil, http.StatusBadRequest)
	// The command line writes the same file.
	var out strings.Builder
	if err := run(t.Context(), []string{"genes", "--url", srv.base, first.conv, string(first.strategy.RootStepID)}, nil, &out, io.Discard, envMap(nil)); err != nil {
		t.Fatalf("strategist genes: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want)+2 || lines[1] != "gene_id\tproduct\tgene_type\tgene_name\torganism\tchromosome\tprevious_ids" {
		t.Errorf("strategist genes wrote %d lines, want a provenance line, a header and %d genes", len(lines), len(want))
	}
	// Retired ids come from the raw mappings file: every row's last column
	// is the gene's list there.
	withPrevious := 0
	for _, line := range lines[2:] {
		cells := strings.Split(line, "\t")
		if cells[len(cells)-1] != "" {
			withPrevious++
		}
		var raw []string // the file lists a gene's ids once per transcript
		for _, id := range data.PreviousIDs[cells[0]] {
			if !slices.Contains(raw, id) {
				raw = append(raw, id)
			}
		}
		if got := cells[len(cells)-1]; got != strings.Join(raw, ", ") {
			t.Errorf("%s: previous ids %q, raw data %q", cells[0], got, strings.Join(raw, ", "))
		}
	}
	if withPrevious == 0 {
		t.Error("no gene of the root has a previous id in the download")
	}
	for _, args := range [][]string{{"genes"}, {"genes", first.conv}, {"genes", "--format", "xml", first.conv, "s1"}} {
		if err := run(t.Context(), args, nil, io.Discard, io.Discard, envMap(nil)); !errors.Is(err, errUsage) {
			t.Errorf("strategist %v = %v, want a usage error", args, err)
		}
	}
	if err := run(t.Context(), []string{"genes", "--url", srv.base, first.conv, "s999"}, nil, io.Discard, io.Discard, envMap(nil)); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("strategist genes for an unknown step = %v, want the server's 404", err)
	}
	if len(first.strategy.Roots) != 1 {
		t.Errorf("roots = %v, want one", first.strategy.Roots)
	}
	for _, turn := range [][]event.Record{first.plan, first.exec} {
		if end := turn[len(turn)-1]; end.Type != "turn_end" || field[event.TurnStatus](t, end, "status") != event.TurnCompleted {
			t.Errorf("turn ended with %s %s", end.Type, end.Payload)
		}
	}

	// The same request again gives the same transcript.
	second := srv.scenario(t, acceptanceRequest)
	if diff := cmp.Diff(strings.Split(canonical(t, first.all()), "\n"), strings.Split(canonical(t, second.all()), "\n")); diff != "" {
		t.Errorf("the transcript changed between runs (-first +second):\n%s", diff)
	}
	// The root's GO enrichment over the API: DNA replication and DNA repair
	// with BH-adjusted p-values.
	prefix := "/api/v1/conversations/" + first.conv
	var enriched struct {
		StepSize int `json:"stepSize"`
		Terms    []struct {
			GOID      string  `json:"goId"`
			Benjamini float64 `json:"benjamini"`
		} `json:"terms"`
	}
	srv.call(t, http.MethodGet, prefix+"/strategy/steps/"+string(first.strategy.RootStepID)+"/enrichment", nil, &enriched, http.StatusOK)
	bh := map[string]float64{}
	for _, term := range enriched.Terms {
		bh[term.GOID] = term.Benjamini
	}
	if enriched.StepSize != 89 || bh["GO:0006260"] <= 0 || bh["GO:0006260"] > 1e-20 || bh["GO:0006281"] <= 0 || bh["GO:0006281"] > 1e-20 {
		t.Errorf("enrichment of the root: %d genes, BH of GO:0006260 %g, GO:0006281 %g", enriched.StepSize, bh["GO:0006260"], bh["GO:0006281"])
	}
	srv.call(t, http.MethodGet, prefix+"/strategy/steps/"+string(first.strategy.RootStepID)+"/enrichment?cutoff=2", nil, nil, http.StatusBadRequest)

	// A follow-up question in execute mode: the offline engine runs
	// enrich_step on the root and answers with the top terms.
	var turn struct {
		TurnID string `json:"turnId"`
	}
	srv.call(t, http.MethodPost, prefix+"/turns", map[string]string{"message": "What are these genes enriched for?", "mode": "execute"}, &turn, http.StatusAccepted)
	follow := srv.follow(t, prefix, first.exec[len(first.exec)-1].Seq, turn.TurnID)
	eventtest.Check(t, append(first.all(), follow...))
	var tools []string
	answer := ""
	for _, r := range follow {
		switch r.Type {
		case "tool_call_start":
			tools = append(tools, field[string](t, r, "name"))
		case "assistant_message":
			answer = field[string](t, r, "content")
		}
	}
	if !slices.Equal(tools, []string{"get_strategy", "enrich_step"}) || !strings.Contains(answer, "(GO:0006281)") || !strings.Contains(answer, "BH p = ") {
		t.Errorf("enrichment follow-up: tools %v, answer:\n%s", tools, answer)
	}
	if len(records(follow, "graph_snapshot")) != 0 {
		t.Error("the enrichment question changed the strategy")
	}
	checkImportAndControls(t, srv, data, first)
}

// TestOfflineRequests plans and builds requests of every kind over HTTP and
// checks the tree of each delegation draft and the root's count against a
// count computed here from the raw files.
func TestOfflineRequests(t *testing.T) {
	t.Parallel()
	srv := startOffline(t)
	d := loadGeneData(t)
	tests := []struct {
		request, tree string
		want          eval.Set
	}{
		{"tRNA genes on chromosome 5", "INTERSECT(GenesByGeneType tRNA encoding, GenesByLocation Pf3D7_05_v3)",
			eval.Intersect(d.OfType("tRNA encoding"), d.On("Pf3D7_05_v3"))},
		{"snoRNAs or rRNA genes", "UNION(GenesByGeneType snoRNA encoding, GenesByGeneType rRNA encoding)",
			eval.Union(d.OfType("snoRNA encoding"), d.OfType("rRNA encoding"))},
		{"protein coding genes on the apicoplast", "INTERSECT(GenesByGeneType protein coding, GenesByLocation PFC10_API_IRAB)",
			eval.Intersect(d.OfType("protein coding"), d.On("PFC10_API_IRAB"))},
		{"genes on chromosomes 1 and 2", "UNION(GenesByLocation Pf3D7_01_v3, GenesByLocation Pf3D7_02_v3)",
			eval.Union(d.On("Pf3D7_01_v3"), d.On("Pf3D7_02_v3"))},
		{"PF3D7_1133400 and MSP1", "GeneByLocusTag PF3D7_1133400,PF3D7_0930300",
			eval.Set{"PF3D7_1133400": true, "PF3D7_0930300": true}},
		{"DNA replicaton genes", "GenesByGoTerm GO:0006260", d.GO("GO:0006260")},
		{"tRAN genes", "GenesByGeneType tRNA encoding", d.OfType("tRNA encoding")},
		{"text search for zzqx flurble", `GenesByText "zzqx flurble"`, eval.Set{}},
		{"P. falciparum genes excluding protein coding genes",
			"MINUS(GenesByTaxon Plasmodium falciparum 3D7, GenesByGeneType protein coding)",
			eval.Minus(d.All(), d.OfType("protein coding"))},
		{"genes involved in translation but not on chromosome 14 or the mitochondrion",
			"MINUS(GenesByGoTerm GO:0006412, UNION(GenesByLocation Pf3D7_14_v3, GenesByLocation M76611))",
			eval.Minus(d.GO("GO:0006412"), eval.Union(d.On("Pf3D7_14_v3"), d.On("M76611")))},
		{"DNA replication and DNA repair", "INTERSECT(GenesByGoTerm GO:0006260, GenesByGoTerm GO:0006281)",
			eval.Intersect(d.GO("GO:0006260"), d.GO("GO:0006281"))},
		{"GO:0006281 minus chromosome 14", "MINUS(GenesByGoTerm GO:0006281, GenesByLocation Pf3D7_14_v3)",
			eval.Minus(d.GO("GO:0006281"), d.On("Pf3D7_14_v3"))},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			s := srv.scenario(t, tt.request)
			eventtest.Check(t, s.all())
			if got := s.draftTree(t); got != tt.tree {
				t.Errorf("delegation draft = %s, want %s", got, tt.tree)
			}
			if got := s.strategy.count(s.strategy.RootStepID); got != len(tt.want) {
				t.Errorf("root count = %d, want %d (computed from the raw files)", got, len(tt.want))
			}
			for _, turn := range [][]event.Record{s.plan, s.exec} {
				if end := turn[len(turn)-1]; field[event.TurnStatus](t, end, "status") != event.TurnCompleted {
					t.Errorf("turn ended %s", end.Payload)
				}
			}
		})
	}
}

// offlineServer is the real application on a loopback port, in dev auth
// mode, with the offline engine as the default model.
type offlineServer struct {
	base    string
	dataDir string
}

func startOffline(t *testing.T) *offlineServer {
	t.Helper()
	dir := dataDir(t)
	cfg, err := config.Load(nil, envMap(map[string]string{"DATABASE_URL": pgtest.NewURL(t), "STRATEGIST_ADDR": "127.0.0.1:0",
		"STRATEGIST_AUTH": "dev", "STRATEGIST_DATA_DIR": dir}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() { done <- serveOn(ctx, cfg, ln, &logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if t.Failed() {
			t.Logf("server logs:\n%s", logs.String())
		}
	})
	s := &offlineServer{base: "http://" + ln.Addr().String(), dataDir: dir}
	for range 400 { // the server migrates first
		if resp, err := http.Get(s.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the server never became ready; logs:\n%s", logs.String())
	return nil
}

// call sends a JSON request and decodes the answer, retrying while the
// turn rate limit says to wait.
func (s *offlineServer) call(t *testing.T, method, path string, body, out any, want int) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(t.Context(), method, s.base+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests && attempt < 20 {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode != want {
			t.Fatalf("%s %s = %d %s, want %d", method, path, resp.StatusCode, raw, want)
		}
		if out != nil {
			if err := json.Unmarshal(raw, out); err != nil {
				t.Fatalf("%s %s: %v: %s", method, path, err, raw)
			}
		}
		return
	}
}

// offlineRun is one request planned and built: the two turns' records and the
// strategy it left.
type offlineRun struct {
	conv       string
	plan, exec []event.Record
	strategy   snapshot
}

func (r offlineRun) all() []event.Record { return append(slices.Clone(r.plan), r.exec...) }

// scenario plans request in a new conversation, accepts the handoff, and
// follows both turns on the SSE stream to their turn_end.
func (s *offlineServer) scenario(t *testing.T, request string) offlineRun {
	t.Helper()
	return s.scenarioIn(t, s.conversation(t), request)
}

// conversation makes a new conversation on the offline site.
func (s *offlineServer) conversation(t *testing.T) string {
	t.Helper()
	var conv struct {
		ID string `json:"id"`
	}
	s.call(t, http.MethodPost, "/api/v1/conversations", map[string]string{"siteId": "plasmodb"}, &conv, http.StatusCreated)
	return conv.ID
}

// scenarioIn is scenario in a conversation that exists.
func (s *offlineServer) scenarioIn(t *testing.T, convID, request string) offlineRun {
	t.Helper()
	conv := struct{ ID string }{convID}
	prefix := "/api/v1/conversations/" + conv.ID
	var turn struct {
		TurnID string `json:"turnId"`
	}
	s.call(t, http.MethodPost, prefix+"/turns", map[string]string{"message": request, "mode": "plan"}, &turn, http.StatusAccepted)
	r := offlineRun{conv: conv.ID}
	r.plan = s.follow(t, prefix, 0, turn.TurnID)
	handoffs := records(r.plan, "handoff_requested")
	if len(handoffs) != 1 {
		t.Fatalf("%d handoff_requested events; the plan turn:\n%s", len(handoffs), eventtest.Mask(r.plan))
	}
	s.call(t, http.MethodPost, prefix+"/handoffs/"+field[string](t, handoffs[0], "handoffId")+"/accept", nil, &turn, http.StatusAccepted)
	r.exec = s.follow(t, prefix, r.plan[len(r.plan)-1].Seq, turn.TurnID)
	s.call(t, http.MethodGet, prefix+"/strategy", nil, &r.strategy, http.StatusOK)
	return r
}

// follow reads the stream after seq until the turn's turn_end.
func (s *offlineServer) follow(t *testing.T, prefix string, after int64, turnID string) []event.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var out []event.Record
	for r, err := range sseclient.Follow(ctx, s.base+prefix+"/events", "", after) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		out = append(out, r)
		if r.Type == "turn_end" && r.TurnID == turnID {
			return out
		}
	}
	t.Fatalf("the stream ended before turn %s did:\n%s", turnID, eventtest.Mask(out))
	return nil
}

// draftTree renders the delegation draft's plan as searches and their key
// values.
func (r offlineRun) draftTree(t *testing.T) string {
	t.Helper()
	for _, rec := range records(r.plan, "artifact_saved") {
		var a struct {
			Artifact struct {
				Kind string          `json:"kind"`
				Plan json.RawMessage `json:"plan"`
			} `json:"artifact"`
		}
		decode(t, rec, &a)
		if a.Artifact.Kind == "delegation_draft" {
			return planTree(t, a.Artifact.Plan)
		}
	}
	t.Fatal("no delegation draft was saved")
	return ""
}

func (r offlineRun) has(t *testing.T, kind string) bool {
	for _, rec := range records(r.plan, "artifact_saved") {
		var a struct {
			Artifact struct {
				Kind string `json:"kind"`
			} `json:"artifact"`
		}
		decode(t, rec, &a)
		if a.Artifact.Kind == kind {
			return true
		}
	}
	return false
}

func planTree(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var n struct {
		Type, Operator string
		Left, Right    json.RawMessage
		Context        struct {
			SearchName string            `json:"searchName"`
			Parameters map[string]string `json:"parameters"`
		}
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("plan %s: %v", raw, err)
	}
	if n.Type == "combine" {
		return n.Operator + "(" + planTree(t, n.Left) + ", " + planTree(t, n.Right) + ")"
	}
	for _, k := range []string{"go_typeahead", "geneType", "chromosomeOptional", "ds_gene_ids", "text_expression", "organism"} {
		if v, ok := n.Context.Parameters[k]; ok {
			var terms []string
			if json.Unmarshal([]byte(v), &terms) == nil {
				v = strings.Join(terms, ",")
			}
			return n.Context.SearchName + " " + v
		}
	}
	return n.Context.SearchName
}

// snapshot is GET /strategy's answer.
type snapshot struct {
	strategy.Snapshot
}

func (s snapshot) count(id strategy.StepID) int {
	for _, st := range s.Steps {
		if st.ID == id && st.Count != nil {
			return *st.Count
		}
	}
	return -1
}

func (s snapshot) find(op strategy.Operator) strategy.StepID {
	for _, st := range s.Steps {
		if st.Operator == op {
			return st.ID
		}
	}
	return ""
}

func records(rs []event.Record, typ string) []event.Record {
	var out []event.Record
	for _, r := range rs {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

func decode(t *testing.T, r event.Record, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Payload, v); err != nil {
		t.Fatalf("%s payload: %v", r.Type, err)
	}
}

func field[T any](t *testing.T, r event.Record, key string) T {
	t.Helper()
	var m map[string]json.RawMessage
	decode(t, r, &m)
	var v T
	_ = json.Unmarshal(m[key], &v)
	return v
}

// canonical renders a transcript so that two runs of the same request
// compare equal: the main stream in order (a batch of concurrent tool
// calls as its starts, then its ends in start order), each sub-agent's
// events in their own lane, graph versions by step count, and step ids named by
// what the step is rather than by creation order, which concurrent
// sub-agents decide. Everything else is eventtest.Mask's masking.
func canonical(t *testing.T, recs []event.Record) string {
	t.Helper()
	names := stepNames(t, recs)
	stepRE := regexp.MustCompile(`\bs\d+\b`)
	rename := func(r event.Record) event.Record {
		r.Payload = []byte(stepRE.ReplaceAllStringFunc(string(r.Payload), func(id string) string {
			if n, ok := names[id]; ok {
				return n
			}
			return id
		}))
		r.Payload = regexp.MustCompile(`"(strategyVersion|version|nextStep)":\s*\d+`).ReplaceAll(r.Payload, []byte(`"$1":"<v>"`))
		return r
	}
	lanes := map[string][]event.Record{}
	var order []string
	var graph strings.Builder
	for _, r := range recs {
		lane := "main"
		switch {
		case r.Type == "graph_snapshot":
			var g struct {
				Snapshot strategy.Snapshot `json:"snapshot"`
			}
			decode(t, r, &g)
			// Steps only: how many roots an intermediate version has
			// depends on whether a combine ran before the last leaf.
			fmt.Fprintf(&graph, "version with %d steps\n", len(g.Snapshot.Steps))
			continue
		case r.Type == "turn_resumed":
			// A turn handed over between two calls (its server's lease
			// lapsed on a loaded machine) goes on exactly where it was:
			// the handover is not part of what the turn says.
			continue
		case r.Type == "conversation_renamed":
			// Emitted from inside a tool call running beside others: its
			// place among their starts and ends is timing. The title
			// follows the result step, so, like the graph's roots, the
			// titles of intermediate versions depend on which sub-agent
			// finished first: only the last is compared.
			if _, ok := lanes["title"]; !ok {
				order = append(order, "title")
			}
			lanes["title"] = []event.Record{rename(r)}
			continue
		case strings.HasPrefix(r.Type, "subagent_") && r.Type != "subagent_plan",
			r.Type == "usage" && field[string](t, r, "nodeId") != "":
			lane = "node " + field[string](t, r, "nodeId")
		}
		if _, ok := lanes[lane]; !ok {
			order = append(order, lane)
		}
		lanes[lane] = append(lanes[lane], rename(r))
	}
	slices.Sort(order[1:])
	var b strings.Builder
	for _, lane := range order {
		fmt.Fprintf(&b, "== %s\n%s", lane, eventtest.Mask(batchCalls(t, lanes[lane])))
	}
	return b.String() + "== graph\n" + graph.String()
}

// batchCalls orders each run of consecutive tool call records as its starts,
// then its ends in the order of their starts.
func batchCalls(t *testing.T, recs []event.Record) []event.Record {
	var out, starts, ends []event.Record
	flush := func() {
		slices.SortStableFunc(ends, func(a, b event.Record) int {
			return slices.IndexFunc(starts, func(s event.Record) bool { return field[string](t, s, "callId") == field[string](t, a, "callId") }) -
				slices.IndexFunc(starts, func(s event.Record) bool { return field[string](t, s, "callId") == field[string](t, b, "callId") })
		})
		out, starts, ends = append(append(out, starts...), ends...), nil, nil
	}
	for _, r := range recs {
		switch r.Type {
		case "tool_call_start":
			starts = append(starts, r)
		case "tool_call_end":
			ends = append(ends, r)
		default:
			flush()
			out = append(out, r)
		}
	}
	flush()
	return out
}

// stepNames names every step of the transcript's last snapshot by its
// search and inputs: s3 might be "<GenesByGoTerm DNA repair (GO:0006281)>".
func stepNames(t *testing.T, recs []event.Record) map[string]string {
	snaps := records(recs, "graph_snapshot")
	names := map[string]string{}
	if len(snaps) == 0 {
		return names
	}
	var g struct {
		Snapshot strategy.Snapshot `json:"snapshot"`
	}
	decode(t, snaps[len(snaps)-1], &g)
	byID := map[strategy.StepID]strategy.Step{}
	for _, s := range g.Snapshot.Steps {
		byID[s.ID] = s
	}
	var name func(id strategy.StepID) string
	name = func(id strategy.StepID) string {
		s := byID[id]
		if len(s.Inputs) == 0 {
			return s.SearchName + " " + s.DisplayName
		}
		parts := []string{string(s.Operator)}
		for _, in := range s.Inputs {
			parts = append(parts, name(in))
		}
		return strings.Join(parts, " ")
	}
	for id := range byID {
		names[string(id)] = "<" + name(id) + ">"
	}
	return names
}

// loadGeneData reads the raw export files with the evaluation set's reader,
// kept apart from the catalog under test so expected counts are computed
// independently; once for every test.
var loadGeneData = offlinetest.Shared(eval.Load)

// download reads all of a step's genes in format and returns their ids.
func (s *offlineServer) download(t *testing.T, conv, step, format string) map[string]bool {
	t.Helper()
	resp, err := http.Get(s.base + "/api/v1/conversations/" + conv + "/strategy/steps/" + step + "/results?format=" + format)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("download %s = %d %v: %s", format, resp.StatusCode, resp.Header, raw)
	}
	ids := map[string]bool{}
	switch format {
	case "json":
		var doc struct {
			Count      int
			Provenance struct{ Source string }
			Records    []struct{ GeneID string }
		}
		if err := json.Unmarshal(raw, &doc); err != nil || doc.Provenance.Source == "" || doc.Count != len(doc.Records) {
			t.Fatalf("JSON download (%v): %.300s", err, raw)
		}
		for _, r := range doc.Records {
			ids[r.GeneID] = true
		}
	case "ids":
		// One id a line and nothing else: what Copy gene ids copies.
		lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		for _, l := range lines {
			if l == "" || strings.ContainsAny(l, "\t #") {
				t.Fatalf("ids download has line %q", l)
			}
			ids[l] = true
		}
		if len(ids) != len(lines) {
			t.Errorf("ids download repeats genes")
		}
	default:
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		sep := map[string]string{"tsv": "\t", "csv": ","}[format]
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "# ") || !strings.HasPrefix(lines[1], "gene_id"+sep+"product") {
			t.Fatalf("%s download starts %q", format, lines[:min(2, len(lines))])
		}
		for _, l := range lines[2:] {
			ids[strings.Split(l, sep)[0]] = true
		}
		if len(ids) != len(lines)-2 {
			t.Errorf("%s download repeats genes", format)
		}
	}
	return ids
}

// TestOfflinePlanFromANamedList: over the HTTP API, a researcher uploads a
// list, asks for "genes in my list '…' that are on chromosome 5", accepts
// the plan, and the built strategy's root
// count is the list's genes on chromosome 5 computed from the raw files.
func TestOfflinePlanFromANamedList(t *testing.T) {
	t.Parallel()
	srv := startOffline(t)
	d := loadGeneData(t)
	chr5 := d.On("Pf3D7_05_v3")
	var genes []string
	on5, other := 0, 0
	for _, g := range d.Genes {
		if chr5[g] && on5 < 9 {
			genes, on5 = append(genes, g), on5+1
		} else if !chr5[g] && other < 6 {
			genes, other = append(genes, g), other+1
		}
	}
	var list struct {
		Size int `json:"size"`
	}
	srv.call(t, http.MethodPost, "/api/v1/gene-lists", map[string]string{"name": "kinase screen", "text": strings.Join(genes, "\n")}, &list, http.StatusCreated)
	if list.Size != len(genes) {
		t.Fatalf("list of %d genes, want %d", list.Size, len(genes))
	}
	want := 0
	for _, g := range genes {
		if chr5[g] {
			want++
		}
	}
	r := srv.scenario(t, "genes in my list 'kinase screen' that are on chromosome 5")
	eventtest.Check(t, r.all())
	if got, tree := r.draftTree(t), "INTERSECT(GeneByLocusTag "+strings.Join(genes, ",")+", GenesByLocation Pf3D7_05_v3)"; got != tree {
		t.Errorf("delegation draft = %s, want %s", got, tree)
	}
	if got := r.strategy.count(r.strategy.RootStepID); got != want || want != 9 {
		t.Errorf("root count = %d, want %d (the list on chromosome 5, from the raw files)", got, want)
	}
}
