package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// decodeJSON reads the request body strictly into v: one JSON object, no
// unknown fields, types as declared. Problems are 400s that say what is
// wrong; an oversized body is a 413.
func decodeJSON(c echo.Context, v any) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		if he, ok := errors.AsType[*echo.HTTPError](err); ok {
			return he
		}
		return fmt.Errorf("read body: %w", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("the request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest(describeJSONError(err))
	}
	if dec.More() {
		return badRequest("malformed JSON: unexpected data after the object")
	}
	return nil
}

func describeJSONError(err error) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return "malformed JSON at byte " + strconv.FormatInt(se.Offset, 10) + ": " + se.Error()
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field != "" {
			return fmt.Sprintf("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return "the body must be a JSON object, not " + te.Value
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "malformed JSON: the body ends too early"
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "unknown field " + name
	}
	return "malformed JSON: " + err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return goKind
}

func retryAfterSeconds(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	return strconv.Itoa(max(secs, 1))
}
