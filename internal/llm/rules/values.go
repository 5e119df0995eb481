package rules

import (
	"regexp"
	"strconv"
	"strings"
)

// phraseValues are the parameter values a phrase states: a numeric range
// ("between 10 and 50 kDa", "at least 3"), an EC number, an InterPro id.
type phraseValues struct {
	min, max string
	kDa      bool // the range is in kilodaltons
	ec, ipr  string
}

var (
	betweenRE = regexp.MustCompile(`(?i)\bbetween\s+(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?\s+(?:and|to)\s+(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?`)
	spanRE    = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s*(?:-|to)\s*(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?\b`)
	atLeastRE = regexp.MustCompile(`(?i)\b(?:at least|more than|over|above|greater than|>=?)\s*(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?`)
	atMostRE  = regexp.MustCompile(`(?i)\b(?:at most|less than|under|below|fewer than|<=?)\s*(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?`)
	ecRE      = regexp.MustCompile(`\b(\d+\.(?:\d+|-)\.(?:\d+|-)\.(?:\d+|-))`)
	iprRE     = regexp.MustCompile(`(?i)\bIPR\d{6}\b`)
)

// wordValues reads the values a phrase states.
func wordValues(text string) phraseValues {
	var v phraseValues
	if m := ecRE.FindStringSubmatch(text); m != nil {
		v.ec = m[1]
		text = strings.Replace(text, m[1], " ", 1) // its digits are no range
	}
	v.ipr = strings.ToUpper(iprRE.FindString(text))
	switch m := betweenRE.FindStringSubmatch(text); {
	case m != nil:
		v.min, v.max, v.kDa = m[1], m[3], m[2] != "" || m[4] != ""
	default:
		if m := spanRE.FindStringSubmatch(text); m != nil {
			v.min, v.max, v.kDa = m[1], m[2], m[3] != ""
		}
		if m := atLeastRE.FindStringSubmatch(text); m != nil {
			v.min, v.kDa = m[1], m[2] != ""
		}
		if m := atMostRE.FindStringSubmatch(text); m != nil {
			v.max, v.kDa = m[1], v.kDa || m[2] != ""
		}
	}
	return v
}

// valueFor returns the value the phrase gives parameter p, if any.
func (v phraseValues) valueFor(p wireParam) (string, bool) {
	name := strings.ToLower(p.Name)
	scale := func(s string) string {
		if !v.kDa || !strings.Contains(name, "weight") {
			return s
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return s
		}
		return strconv.FormatFloat(f*1000, 'f', -1, 64)
	}
	switch {
	case strings.HasPrefix(name, "min") && v.min != "":
		return scale(v.min), true
	case strings.HasPrefix(name, "max") && v.max != "":
		return scale(v.max), true
	case strings.Contains(name, "ec_number") && v.ec != "":
		return v.ec, true
	case strings.Contains(name, "interpro") && v.ipr != "" && p.Type == "string":
		return v.ipr, true
	}
	return "", false
}
