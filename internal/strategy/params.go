package strategy

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// EncodeParameters turns parameter values as a model or a JSON client sends
// them into WDK's string encoding: strings stay as they are, numbers are
// written plainly ("10000", "2.5"), lists become JSON-array strings (a
// multi-pick; never a comma-joined string, which WDK would split on
// commas inside terms), and objects such as {"min":1,"max":5} become JSON
// strings with string values, as number and date ranges are sent. A null
// value is refused rather than guessed.
func EncodeParameters(in map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(in))
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := encodeValue(in[k])
		if err != nil {
			return nil, fmt.Errorf("strategy: parameter %s: %w: %w", k, ErrInvalidParameters, err)
		}
		out[k] = v
	}
	return out, nil
}

func encodeValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return formatNumber(x)
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case json.Number:
		return x.String(), nil
	case []string:
		return marshalString(x)
	case []any:
		items := make([]string, len(x))
		for i, e := range x {
			s, err := encodeScalar(e)
			if err != nil {
				return "", fmt.Errorf("item %d: %w", i+1, err)
			}
			items[i] = s
		}
		return marshalString(items)
	case map[string]any:
		obj := make(map[string]string, len(x))
		for k, e := range x {
			s, err := encodeScalar(e)
			if err != nil {
				return "", fmt.Errorf("%s: %w", k, err)
			}
			obj[k] = s
		}
		return marshalString(obj)
	case nil:
		return "", fmt.Errorf("no value given")
	}
	return "", fmt.Errorf("cannot encode a %T", v)
}

// encodeScalar encodes a list item or an object member.
func encodeScalar(v any) (string, error) {
	switch v.(type) {
	case []any, map[string]any, []string:
		return "", fmt.Errorf("nested lists and objects are not parameter values")
	}
	return encodeValue(v)
}

func formatNumber(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("%v is not a number", f)
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

func marshalString(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
