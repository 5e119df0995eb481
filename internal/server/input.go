package server

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// CodeInvalidText and CodeInvalidID are the 400s for input that is refused
// before any handler or query sees it.
const (
	CodeInvalidText = "INVALID_TEXT"
	CodeInvalidID   = "INVALID_ID"
)

// idParams are the route parameters that name rows by UUID, with how an
// error names them.
var idParams = map[string]string{"id": "conversation id", "turnId": "turn id", "handoffId": "handoff id", "artifactId": "artifact id", "shareId": "share link id"}

// checkInput refuses text PostgreSQL cannot store or that no researcher
// types (invalid UTF-8, NUL) anywhere in the address, the query, the route
// parameters or a JSON or form body, and ids that are not UUIDs, with a 400
// that says which part is wrong. Handlers and the store never see them.
func (s *Server) checkInput() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if !cleanText(r.URL.Path) {
				return invalidText("the address")
			}
			for k, vs := range r.URL.Query() {
				if !cleanText(k) || !allClean(vs) {
					return invalidText("the query parameter " + quote(strings.ToValidUTF8(k, "?")))
				}
			}
			names, values := c.ParamNames(), c.ParamValues()
			for i := 0; i < len(names) && i < len(values); i++ {
				v := values[i]
				if u, err := url.PathUnescape(v); err == nil {
					v = u
				}
				if !cleanText(v) {
					return invalidText("the " + names[i] + " in the address")
				}
				if label, ok := idParams[names[i]]; ok && !isUUID(v) {
					return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidID, Message: "the " + label + " must be a UUID such as 0b9e4f7c-3d1a-4c55-9a7e-2f6d8c1b0a93",
						Details: map[string]string{"param": names[i]}}
				}
			}
			if r.Body != nil && r.Body != http.NoBody && r.Method != http.MethodGet {
				if err := checkBody(c); err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}

// checkBody reads a request body, checks its text and puts it back. Every
// body is checked, whatever type it declares: the protocol routes read JSON
// sent as text/plain or with no type at all, and a type's case is not
// meaning. A form's fields are checked once decoded; a JSON escape of NUL
// (\u0000) is refused in any other body. Multipart bodies are refused: no
// route takes one, and echo would otherwise decode their parts for
// FormValue unseen.
func checkBody(c echo.Context) error {
	r := c.Request()
	mt, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if strings.HasPrefix(strings.ToLower(r.Header.Get(echo.HeaderContentType)), "multipart/") || strings.HasPrefix(mt, "multipart/") {
		return &APIError{Status: http.StatusUnsupportedMediaType, Code: CodeMediaType, Message: "multipart bodies are not accepted; send JSON, or a form as application/x-www-form-urlencoded"}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err // too large: the body limit's 413
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	isForm := mt == echo.MIMEApplicationForm
	if !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 || !isForm && jsonHasNULEscape(body) {
		return invalidText("the request body")
	}
	if isForm {
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return badRequest("malformed form body: " + err.Error())
		}
		for k, vs := range vals {
			if !cleanText(k) || !allClean(vs) {
				return invalidText("the form field " + quote(strings.ToValidUTF8(k, "?")))
			}
		}
	}
	return nil
}

func invalidText(where string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidText, Message: where + " must be UTF-8 text without NUL characters"}
}

func cleanText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

func allClean(vs []string) bool {
	for _, v := range vs {
		if !cleanText(v) {
			return false
		}
	}
	return true
}

// jsonHasNULEscape reports a \u0000 escape in JSON text (a string that
// decodes to a NUL), skipping escaped backslashes.
func jsonHasNULEscape(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) && string(b[i+2:i+6]) == "0000" {
			return true
		}
		i++ // the escaped character
	}
	return false
}
