package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/server"
)

// fuzzRoutes are the endpoints that read a JSON body (and one that reads a
// query), with {id} standing for a conversation of the fuzzing user.
var fuzzRoutes = []struct{ method, path string }{
	{"POST", "/api/v1/conversations"},
	{"PATCH", "/api/v1/conversations/{id}"},
	{"POST", "/api/v1/conversations/{id}/turns"},
	{"POST", "/api/v1/catalog/plasmodb/searches/GenesByGoTerm/count"},
	{"PUT", "/api/v1/account/veupathdb"},
	{"GET", "/api/v1/catalog/plasmodb/searches?q="},
	{"POST", "/v1/chat/completions"},
	{"POST", "/api/v1/conversations/{id}/share"},
	{"GET", "/api/v1/conversations?q="},
}

// fuzzTypes are the Content-Types a fuzzed body is sent with: what clients
// send, and what they send by mistake (the text check must not depend on
// it).
var fuzzTypes = []string{"application/json", "Application/JSON", "text/plain", "", "application/json; charset=utf-8", "application/octet-stream"}

// FuzzJSONBodies sends any bytes, with any of fuzzTypes, to every JSON
// endpoint: the answer is a success or a 4xx/503 with a JSON error that has
// a code and a message, never an internal error. make test runs it for a
// bounded time.
func FuzzJSONBodies(f *testing.F) {
	seeds := map[int][]string{
		0: {`{"siteId":"plasmodb","title":"kinases"}`, `{"siteId":"toxodb-live"}`, `{"siteId":1}`, `[]`, `{"title":"\u0000"}`},
		1: {`{"title":"Kinases on chromosome 14"}`, `{"title":""}`, `{"title":"` + strings.Repeat("x", 300) + `"}`, `{"title":null}`},
		2: {`{"message":"DNA repair genes","mode":"plan"}`, `{"message":"x","mode":"execute","model":"nope"}`, `{"message":"","mode":"plan"}`, "{\"message\":\"\xff\"}"},
		3: {`{"parameters":{"go_typeahead":"[\"GO:0006281\"]","organism":"[\"Plasmodium falciparum 3D7\"]"}}`, `{"parameters":{"bogus":"1"}}`, `{"parameters":[]}`},
		4: {`{"siteId":"plasmodb-live","apiKey":"abc"}`, `{"siteId":"plasmodb","apiKey":"abc","allSites":true}`, `{}`},
		5: {"kinase", "GO term", "%", "\x00", "a&b=c"},
		6: {`{"model":"strategist","messages":[{"role":"user","content":"DNA repair genes"}]}`, `{"model":"strategist-auto","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"kinases"}]}]}`,
			`{"model":"gpt-4o","messages":[]}`, `{"model":"strategist","messages":[{"role":"user","content":7}]}`, `{"messages":null}`},
		7: {`{"public":true}`, `{"public":"yes"}`, `{"public":null}`, `{}`, ` `},
		8: {"kinase -rhoptry", `"dna repair" or replication`, "the", "!:*&|(", "-", `'`, "\x00", strings.Repeat("w", 250)},
	}
	for route, bodies := range seeds {
		for i, b := range bodies {
			f.Add(route, i%len(fuzzTypes), []byte(b))
		}
	}
	f.Add(1, 1, []byte(`{"title":"a\u0000b"}`))
	f.Add(6, 2, []byte(`{"model":"strategist","messages":[{"role":"user","content":"x\u0000"}]}`))
	f.Add(6, 3, []byte(`{"model":"strategist","messages":[{"role":"user","content":"x\u0000"}]}`))
	cat, err := offline.New(offline.Config{})
	if err != nil {
		f.Fatal(err)
	}
	e := newEnvWith(f, config.AuthLocal, cat, func(c *server.Config) {
		c.RequestRate = 1e9
	})
	_, token := e.user("fuzz@example.org")
	id := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`).json(f)["id"].(string)
	f.Fuzz(func(t *testing.T, route, contentType int, body []byte) {
		if route < 0 || route >= len(fuzzRoutes) || contentType < 0 || contentType >= len(fuzzTypes) {
			return
		}
		rt := fuzzRoutes[route]
		target := e.srv.URL + strings.ReplaceAll(rt.path, "{id}", id)
		var rd io.Reader
		if rt.method == "GET" {
			target += url.QueryEscape(string(body))
		} else {
			rd = strings.NewReader(string(body))
		}
		// A chat completion that passes validation answers only when its
		// turn has ended: planning (and with strategist-auto, building) is
		// not what this fuzzes, and waiting for them would make most of the
		// run's inputs turns. Such a request gets a second; running out of it
		// means the request was taken (the turn goes on in the server).
		limit := 30 * time.Second
		if rt.path == "/v1/chat/completions" {
			limit = time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, rt.method, target, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if rd != nil && fuzzTypes[contentType] != "" {
			req.Header.Set("Content-Type", fuzzTypes[contentType])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil && rt.path == "/v1/chat/completions" && errors.Is(err, context.DeadlineExceeded) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil && rt.path == "/v1/chat/completions" && errors.Is(err, context.DeadlineExceeded) {
			return // a stream that was still running
		}
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode < 400 {
			return
		}
		var out struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(raw, &out); err != nil || out.Error.Code == "" || out.Error.Message == "" {
			t.Fatalf("%s %s %q = %d with a body that is not a JSON error: %s", rt.method, rt.path, body, resp.StatusCode, raw)
		}
		if resp.StatusCode >= 500 && resp.StatusCode != http.StatusServiceUnavailable || out.Error.Code == server.CodeInternal {
			t.Fatalf("%s %s %q = %d %s", rt.method, rt.path, body, resp.StatusCode, raw)
		}
	})
}
