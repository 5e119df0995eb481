package security

import (
	"net/http"
	"testing"
)

// TestSignInRedirectStaysOnSite: a signed-in visitor sent to
// /signin?next=/<tab>/evil.example is taken home, not to evil.example
// (browsers drop the tab and read "//evil.example").
func TestSignInRedirectStaysOnSite(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	s.user(t, "ada@example.org")
	signedIn := s.signIn(t, from("127.0.0.1"), "ada@example.org", password)
	for _, next := range []string{"%2F%09%2Fevil.example", "%2F%0A%2Fevil.example", "%2F%5Cevil.example", "%2F%2Fevil.example", "https%3A%2F%2Fevil.example", "javascript%3Aalert(1)"} {
		req, err := http.NewRequest("GET", s.URL+"/signin?next="+next, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range signedIn.Cookies() {
			req.AddCookie(c)
		}
		// The transport, not a client: a client refuses to parse the
		// Location the attack relies on.
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/" {
			t.Errorf("signed-in /signin?next=%s = %d to %q, want 303 to /", next, resp.StatusCode, loc)
		}
	}
}
