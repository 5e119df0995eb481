// Package proctest runs the strategist server as a real process for tests
// that must see it as its users and attackers do: over TCP, with its own
// memory, killed with SIGKILL like a crash.
package proctest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

var binary struct {
	once sync.Once
	path string
	err  error
}

// Binary builds the strategist command once per test process and returns
// its path; STRATEGIST_BINARY names a binary to use instead (to run the
// suites against another build).
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("STRATEGIST_BINARY"); p != "" {
		return p
	}
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "strategist-bin-*")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "strategist")
		out, err := exec.Command("go", "build", "-o", binary.path, "strategist/cmd/server").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// FreeAddr is a loopback address nothing listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Proc is a strategist server running as its own process.
type Proc struct {
	URL  string
	Logs *Logs
	t    testing.TB
	cmd  *exec.Cmd
	done chan error
}

// Start runs `strategist serve` on a free address with env added to this
// process's environment, and waits until it is ready. The test's end kills
// it.
func Start(t testing.TB, env map[string]string) *Proc {
	t.Helper()
	return StartAll(t, env)[0]
}

// StartAll runs one `strategist serve` per env, all at once, and waits
// until every one is ready: servers sharing a database start in the time
// of one. The test's end kills them.
func StartAll(t testing.TB, envs ...map[string]string) []*Proc {
	t.Helper()
	procs := make([]*Proc, len(envs))
	for i, env := range envs {
		procs[i] = spawn(t, env)
	}
	for _, p := range procs {
		p.waitReady()
	}
	return procs
}

// spawn starts a server without waiting for it.
func spawn(t testing.TB, env map[string]string) *Proc {
	t.Helper()
	addr := FreeAddr(t)
	cmd := exec.Command(Binary(t), "serve")
	cmd.Env = append(os.Environ(), "STRATEGIST_ADDR="+addr, "STRATEGIST_LOG_LEVEL=warn")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &Proc{URL: "http://" + addr, Logs: &Logs{}, t: t, cmd: cmd, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.Logs, p.Logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(p.Kill)
	return p
}

// waitReady waits until the server answers /readyz with 200.
func (p *Proc) waitReady() {
	p.t.Helper()
	for range 600 {
		resp, err := http.Get(p.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-p.done:
			p.t.Fatalf("server exited: %v\n%s", err, p.Logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.t.Fatalf("server never ready\n%s", p.Logs.String())
}

// PID is the server's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Kill ends the process at once (SIGKILL), as a crash would.
func (p *Proc) Kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	p.t.Logf("server killed: %v", <-p.done)
}

// Logs collects a server's output; safe for concurrent writes.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
