package wdk

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"strategist/internal/catalog/wdk/wdkfake"
)

// fakeWDK is the WDK fake (package wdkfake) with the helpers these tests
// use: a VEuPathDB WDK service in memory that serves its fixtures, keeps
// steps and strategies per user, evaluates step trees over its genes, and
// records every client behaviour the live site would punish.
type fakeWDK struct {
	*wdkfake.Fake
	t testing.TB
}

type fakeRequest = wdkfake.Request

type fakeResponse struct {
	status int
	header map[string]string
	body   string
}

const (
	registeredToken = wdkfake.RegisteredKey
	guestToken      = wdkfake.GuestKey
	otherToken      = wdkfake.OtherKey
	registeredID    = wdkfake.RegisteredID
	otherID         = wdkfake.OtherID
	guestCookie     = wdkfake.GuestCookie
)

func newFakeWDK(t testing.TB) *fakeWDK {
	f, err := wdkfake.New(wdkfake.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeWDK{Fake: f, t: t}
}

// hide removes a search from the site, as a new release may.
func (f *fakeWDK) hide(name string) { f.Hide(name) }

// serve starts the fake under /plasmo/service and returns that base URL.
func (f *fakeWDK) serve() string {
	srv := httptest.NewServer(http.StripPrefix("/plasmo/service", f.Fake))
	f.t.Cleanup(srv.Close)
	return srv.URL + "/plasmo/service"
}

// inject queues responses served before the normal handling of a route.
func (f *fakeWDK) inject(method, path string, rs ...fakeResponse) {
	for _, r := range rs {
		f.Inject(method, path, wdkfake.Response{Status: r.status, Header: r.header, Body: r.body})
	}
}

// recorded returns the requests matching method and a path prefix.
func (f *fakeWDK) recorded(method, pathPrefix string) []fakeRequest {
	return f.Recorded(method, pathPrefix)
}

func (f *fakeWDK) checkNoViolations(t *testing.T) {
	t.Helper()
	for _, v := range f.Violations() {
		t.Errorf("client behaviour the live site punishes: %s", v)
	}
}

// fixtureSearch is a search's searchData among the fake's fixtures.
func fixtureSearch(t *testing.T, recordType, name string) string {
	t.Helper()
	b, err := os.ReadFile("wdkfake/fixtures/searches/" + recordType + "/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
