package gemini

import "net/http"

// hintKey is the context key under which one attempt's responseHint travels
// from Stream through the SDK to hintTransport. The SDK's APIError carries no
// headers, so this is the only way to see a Retry-After; the value is scoped
// to a single attempt and never leaves this package.
type hintKey struct{}

// responseHint records what the transport saw of the last HTTP response of
// one attempt. It is written and read on the goroutine running Stream: the
// SDK calls http.Client.Do, and so RoundTrip, synchronously.
type responseHint struct {
	status     int
	retryAfter string
}

// hintTransport fills the attempt's responseHint from each response.
type hintTransport struct {
	next http.RoundTripper
}

func (t hintTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		if h, ok := req.Context().Value(hintKey{}).(*responseHint); ok {
			h.status = resp.StatusCode
			h.retryAfter = resp.Header.Get("Retry-After")
		}
	}
	return resp, err
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// wrapped transport.
func (t hintTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
