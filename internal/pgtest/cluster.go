package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// cluster is a throwaway Postgres cluster in a temporary directory.
type cluster struct {
	dir    string
	bindir string
	url    string
	cred   *syscall.Credential
}

// startCluster runs initdb and pg_ctl start on a free port.
func startCluster(ctx context.Context) (*cluster, error) {
	bindir, err := findBindir()
	if err != nil {
		return nil, err
	}
	c := &cluster{bindir: bindir}
	dir, err := os.MkdirTemp("", "strategist-pgtest-*")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	c.dir = dir
	if os.Geteuid() == 0 {
		// initdb refuses to run as root; the cluster belongs to postgres.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run(ctx, "initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"); err != nil {
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", port, dir)
	if out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %w: %s", err, out)
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c, nil
}

func (c *cluster) stop() {
	_, _ = c.run(context.Background(), "pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	_ = os.RemoveAll(c.dir)
}

func (c *cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bindir, name), args...)
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	cmd.Dir = c.dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// findBindir locates initdb: pg_config, then Debian's versioned directories,
// then PATH.
func findBindir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no Postgres server binaries (initdb) found; install postgresql or set DATABASE_URL")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
