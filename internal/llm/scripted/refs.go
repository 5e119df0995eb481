package scripted

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"strategist/internal/llm"
)

// refPrefix starts a reference to the latest tool result in a scripted
// call's arguments: the string "$result.step.stepId" is replaced by the value
// at step.stepId in the newest tool result of the request's history. Ids the
// server assigns (step ids under parallel sub-agents) are not known when a
// script is written; a reference lets a scripted sub-agent finish with the
// step it just created.
const refPrefix = "$result."

// resolveRefs replaces references in args. Arguments without references are
// returned unchanged.
func resolveRefs(args json.RawMessage, req llm.Request) (json.RawMessage, error) {
	if !strings.Contains(string(args), `"`+refPrefix) {
		return args, nil
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("scripted: arguments: %w", err)
	}
	result, ok := latestResult(req)
	if !ok {
		return nil, fmt.Errorf("scripted: arguments refer to a tool result, but the history has none")
	}
	v, err := replaceRefs(v, result)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func latestResult(req llm.Request) (any, bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if len(m.ToolResults) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(m.ToolResults[len(m.ToolResults)-1].Content, &v) != nil {
			return nil, false
		}
		return v, true
	}
	return nil, false
}

func replaceRefs(v any, result any) (any, error) {
	switch x := v.(type) {
	case string:
		path, ok := strings.CutPrefix(x, refPrefix)
		if !ok {
			return x, nil
		}
		return lookup(result, path)
	case []any:
		for i := range x {
			r, err := replaceRefs(x[i], result)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
		return x, nil
	case map[string]any:
		for k := range x {
			r, err := replaceRefs(x[k], result)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
		return x, nil
	}
	return v, nil
}

func lookup(v any, path string) (any, error) {
	cur := v
	for _, key := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[key]
			if !ok {
				return nil, fmt.Errorf("scripted: %s%s: no key %q in the latest tool result", refPrefix, path, key)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("scripted: %s%s: no index %q in the latest tool result", refPrefix, path, key)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("scripted: %s%s: %q is not inside an object or array", refPrefix, path, key)
		}
	}
	return cur, nil
}
