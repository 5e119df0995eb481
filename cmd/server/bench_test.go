package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"strategist/internal/pgtest"
)

// BenchmarkPostToTurnStart measures the time from POST .../turns to the
// turn_start event arriving on a stream that was already open. The request
// names its model, as the conversation page's composer always does. Between
// turns, with the timer stopped, it samples the floor: a bare one-row
// commit on the server's own pool; ratio-p50 and ratio-p99 are the turn
// start's latency over it. It also samples the raw path (rawStartPath):
// the same HTTP legs around one bare commit, so that the table shows how
// much of the turn start is HTTP and commit, whatever the code does.
func BenchmarkPostToTurnStart(b *testing.B) {
	a := startBenchApp(b, nil)
	floor := pgtest.NewFloor(b, a.app.db.Pool())
	// The stream has a client of its own, as a browser's event stream has
	// a connection of its own: sharing the requests' pool, each new stream
	// took the connection the POST had kept alive, and every POST paid for
	// a new one.
	streams := &http.Client{Transport: &http.Transport{}}
	defer streams.CloseIdleConnections()
	raw := newRawStartPath(b, floor)
	var lat []time.Duration
	for b.Loop() {
		b.StopTimer()
		raw.sample(b)
		conv := a.newConversation()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		// A bare SSE reader (as the delivery benchmark's clients): the
		// figure is the server's, not a client library's.
		started, ended := make(chan time.Time, 1), make(chan struct{})
		go func() {
			defer close(ended)
			readStream(ctx, streams, a.streamURL(conv), a.Token, func(rec streamRecord) bool {
				if rec.Type == "turn_start" {
					started <- time.Now()
				}
				return rec.Type == "turn_end"
			})
		}()
		// Give the stream a moment to subscribe before the turn starts.
		time.Sleep(20 * time.Millisecond)
		floor.Warm(b)
		floor.Sample(b, 3)
		b.StartTimer()
		start := time.Now()
		a.startTurnWith(conv, map[string]string{"mode": "plan", "message": "tRNA genes", "model": "offline"})
		select {
		case at := <-started:
			lat = append(lat, at.Sub(start))
		case <-ended:
			b.Fatal("the stream ended before turn_start")
		}
		b.StopTimer()
		<-ended
		cancel()
		b.StartTimer()
	}
	floor.Report(b, lat)
	raw.report(b)
}

// rawStartPath is the turn start's physical floor over HTTP: a bare
// net/http server whose POST commits one bare row and sends one SSE frame
// to a stream the client opened before, with nothing of Strategist in
// between (no middleware, no authentication, no turn). The turn-start
// benchmark takes one sample of it per turn, with the same pause before
// it, and reports it as raw-path-p50-ms and raw-path-p99-ms: what the HTTP
// legs and one commit cost on this machine.
type rawStartPath struct {
	srv            *httptest.Server
	posts, streams *http.Client
	frames         chan []byte
	lat            []time.Duration
	floor          *pgtest.Floor
}

func newRawStartPath(b *testing.B, floor *pgtest.Floor) *rawStartPath {
	r := &rawStartPath{frames: make(chan []byte, 1), floor: floor,
		posts: &http.Client{Transport: &http.Transport{}}, streams: &http.Client{Transport: &http.Transport{}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, ": open\n\n")
		w.(http.Flusher).Flush()
		select {
		case f := <-r.frames:
			_, _ = w.Write(f)
			w.(http.Flusher).Flush()
		case <-req.Context().Done():
		}
	})
	mux.HandleFunc("POST /start", func(w http.ResponseWriter, req *http.Request) {
		var body map[string]string
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := floor.Commit(req.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		r.frames <- fmt.Appendf(nil, "id: 1\nevent: turn_start\ndata: {\"message\":%q}\n\n", body["message"])
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"turnId":"raw"}`)
	})
	r.srv = httptest.NewServer(mux)
	b.Cleanup(func() {
		r.posts.CloseIdleConnections()
		r.streams.CloseIdleConnections()
		r.srv.Close()
	})
	return r
}

// sample opens a stream, pauses as the turn-start benchmark does, warms
// the commit path, and times one POST to the frame's arrival.
func (r *rawStartPath) sample(b *testing.B) {
	resp, err := r.streams.Get(r.srv.URL + "/stream")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // ": open": the stream is waiting
		b.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	r.floor.Warm(b)
	start := time.Now()
	post, err := r.posts.Post(r.srv.URL+"/start", "application/json", strings.NewReader(`{"mode":"plan","message":"tRNA genes","model":"offline"}`))
	if err != nil {
		b.Fatal(err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasPrefix(line, "data:") {
			break
		}
	}
	r.lat = append(r.lat, time.Since(start))
	_, _ = io.Copy(io.Discard, post.Body)
	post.Body.Close()
}

func (r *rawStartPath) report(b *testing.B) {
	if len(r.lat) == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(pgtest.Quantile(r.lat, 0.50)), "raw-path-p50-ms")
	b.ReportMetric(ms(pgtest.Quantile(r.lat, 0.99)), "raw-path-p99-ms")
}

// BenchmarkToolCallCPU runs turns whose scripted model (no latency) calls
// list_steps 200 times, twenty calls a round, one turn after another in one
// server, and reports the server process's CPU time per tool call (user +
// system, over all the turns; the database server's own CPU is not
// included) and its allocations. Running the turns in one process
// amortizes the garbage collector as a running server does: a collection
// that falls into one turn is paid for by the allocations of all of them.
func BenchmarkToolCallCPU(b *testing.B) { benchmarkToolCallCPU(b, nil) }

// BenchmarkToolCallCPUTraced is BenchmarkToolCallCPU with tracing on:
// every span (the turn, its model and tool calls, the strategy reads and
// their queries) is made, batched and handed to an exporter that drops it,
// so the figure is the cost of tracing without the network.
func BenchmarkToolCallCPUTraced(b *testing.B) { benchmarkToolCallCPU(b, tracetest.NewNoopExporter()) }

func benchmarkToolCallCPU(b *testing.B, spans sdktrace.SpanExporter) {
	const calls = 200
	dir := b.TempDir()
	// Each turn is ten rounds of twenty calls (within the executor's round
	// limit) and a closing answer; the script holds b.N turns.
	var responses []map[string]any
	for range b.N {
		for range 10 {
			var batch []map[string]any
			for range calls / 10 {
				batch = append(batch, map[string]any{"name": "list_steps", "args": map[string]any{}})
			}
			responses = append(responses, map[string]any{"toolCalls": batch})
		}
		responses = append(responses, map[string]any{"text": "done"})
	}
	script := map[string]any{"roles": map[string]any{"executor": responses}}
	raw, _ := json.Marshal(script)
	if err := os.WriteFile(filepath.Join(dir, "calls.json"), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	a := startApp(b, appOptions{Spans: spans, Env: benchEnv(map[string]string{"STRATEGIST_SCRIPTS_DIR": dir, "STRATEGIST_MODEL": "scripted:calls.json"})})
	defer a.Stop()
	convs := make([]string, b.N)
	for i := range convs {
		convs[i] = a.newConversation()
	}
	runtime.GC() // the start's garbage (the catalog's load) is not the turns'
	var cpu time.Duration
	var mallocs uint64
	b.ResetTimer()
	for _, conv := range convs {
		// The end is awaited on the broker, in the process: polling the
		// API or reading an SSE stream would add its own CPU to the turn's.
		sub := a.app.broker.Subscribe(conv)
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		before := cpuTime()
		turn := a.startTurn(conv, "execute", "list")
		for r := range sub.Records() {
			if r.Type == "turn_end" && r.TurnID == turn {
				break
			}
		}
		cpu += cpuTime() - before
		runtime.ReadMemStats(&ms1)
		mallocs += ms1.Mallocs - ms0.Mallocs
		sub.Close()
		b.StopTimer()
		var tr struct{ Turns []struct{ ID, Status string } }
		a.call("GET", "/api/v1/conversations/"+conv, nil, &tr)
		if len(tr.Turns) != 1 || tr.Turns[0].ID != turn || tr.Turns[0].Status != "completed" {
			b.Fatalf("turns %+v, want %s completed\n%s", tr.Turns, turn, a.logs.String())
		}
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N * calls)
	b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/call")
	b.ReportMetric(float64(mallocs)/n, "allocs/call")
}

// startBenchApp starts the application for a benchmark (testApp needs a
// *testing.T; benchmarks get the same graph through a thin wrapper).
func startBenchApp(b *testing.B, env map[string]string) *testApp {
	b.Helper()
	return startApp(b, appOptions{Env: benchEnv(env)})
}

// benchEnv lifts the rate limits a benchmark would hit.
func benchEnv(env map[string]string) map[string]string {
	if env == nil {
		env = map[string]string{}
	}
	env["STRATEGIST_TURN_RATE"] = "1000"
	env["STRATEGIST_REQUEST_RATE"] = "100000"
	env["STRATEGIST_RUNNING_TURNS"] = "1000"
	return env
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
