package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The process listens where it says, answers WDK with the keys it was
// given, and stops cleanly when its context ends.
func TestRunServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-fixtures", "-key", "key-one"}, w, io.Discard, func(string) string { return "" })
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	base, _, ok := strings.Cut(strings.TrimPrefix(line, "wdkfake: listening on "), " ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line = %q", line)
	}

	req, _ := http.NewRequest(http.MethodGet, base+"/plasmo/service/users/current", nil)
	req.Header.Set("Authorization", "Bearer key-one")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var user struct {
		ID      int64 `json:"id"`
		IsGuest bool  `json:"isGuest"`
	}
	err = json.NewDecoder(res.Body).Decode(&user)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || user.ID != 1001 || user.IsGuest {
		t.Errorf("GET /users/current = %d %+v %v, want user 1001", res.StatusCode, user, err)
	}
	res, err = http.Post(base+"/__fake/revoke?key=key-one", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /users/current with a revoked key = %d, want 401", res.StatusCode)
	}
	http.DefaultClient.CloseIdleConnections()

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run() = %v after its context ended", err)
	}
}
