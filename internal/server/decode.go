package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/protocol"
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

// describeJSONError says what is wrong with a JSON body (protocol's).
var describeJSONError = protocol.DescribeJSONError

func retryAfterSeconds(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	return strconv.Itoa(max(secs, 1))
}
