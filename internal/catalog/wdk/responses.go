package wdk

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"strategist/internal/catalog"
)

// WDK's answers that are not a success become typed errors here; text that
// goes into an error or a log is made safe here.

// statusError types a final non-2xx answer.
func statusError(s *siteConn, r request, status int, hdr http.Header, body []byte, token string, attempts int) error {
	msg := bodyMessage(body, token)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &AuthError{Site: s.ID, Status: status, Message: msg}
	case status == http.StatusNotFound:
		return &NotFoundError{Site: s.ID, Path: r.path, Message: msg}
	case status == http.StatusConflict:
		return &ConflictError{Site: s.ID, Path: r.path, Message: msg}
	case status == http.StatusUnprocessableEntity:
		return validationError(r.search, body, token)
	case status >= 500:
		return &ServerError{Site: s.ID, Method: r.method, Path: r.path, Status: status, Message: msg,
			Attempts: attempts, LogMarker: hdr.Get("X-Log-Marker")}
	}
	return &RequestError{Site: s.ID, Method: r.method, Path: r.path, Status: status, Message: msg}
}

var notInContainer = regexp.MustCompile(`Parameter '([^']+)' is not in container`)

// validationError reads a 422 body: WDK's validation bundle as JSON (served
// as text/plain), or a plain message.
func validationError(search string, body []byte, token string) error {
	var w wireValidation
	if json.Unmarshal(body, &w) == nil && (len(w.Errors.General) > 0 || len(w.Errors.ByKey) > 0) {
		v := w.validation()
		// WDK wraps a plain 422 message as the bundle's one general error:
		// an unknown parameter's is keyed by it, as in a plain message.
		var general []string
		for _, g := range v.General {
			g = redact(g, token)
			if m := notInContainer.FindStringSubmatch(g); m != nil {
				if v.ByKey == nil {
					v.ByKey = map[string][]string{}
				}
				v.ByKey[m[1]] = append(v.ByKey[m[1]], g)
			} else {
				general = append(general, g)
			}
		}
		v.General = general
		return v.Err(search)
	}
	e := &catalog.ValidationError{Search: search}
	msg := bodyMessage(body, token)
	if m := notInContainer.FindStringSubmatch(msg); m != nil {
		e.Add(m[1], msg)
	} else {
		e.Add("", msg)
	}
	return e
}

// bodyMessage makes an error body safe and short for an error message:
// HTML pages of the proxy are reduced to nothing, the caller's token is
// redacted should a server ever echo it.
func bodyMessage(body []byte, token string) string {
	s := strings.TrimSpace(string(body))
	if strings.HasPrefix(s, "<") {
		return ""
	}
	var obj struct {
		Message text `json:"message"`
	}
	if strings.HasPrefix(s, "{") && json.Unmarshal(body, &obj) == nil && obj.Message != "" {
		s = string(obj.Message)
	}
	s = redact(s, token)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// jwtLike matches JSON Web Tokens (what WDK's Authorization cookies hold).
var jwtLike = regexp.MustCompile(`eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_.-]+`)

// redact hides the caller's token and anything that looks like a JWT (a
// guest token WDK minted) in text bound for an error or a log.
func redact(s, token string) string {
	if token != "" {
		s = strings.ReplaceAll(s, token, "[redacted]")
	}
	return jwtLike.ReplaceAllString(s, "[redacted]")
}

// redactErr keeps the error chain but hides the token in its message.
func redactErr(err error, token string) error {
	if err == nil {
		return nil
	}
	msg := redact(err.Error(), token)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
