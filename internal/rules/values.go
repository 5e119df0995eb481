package rules

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// phraseValues are the parameter values a phrase states: a numeric range
// ("between 10 and 50 kDa", "at least 3"), an EC number, an InterPro id.
type phraseValues struct {
	min, max string
	// minStrict and maxStrict mark "more than" and "fewer than": for a
	// count, the bound moves by one.
	minStrict, maxStrict bool
	kDa                  bool // the range is in kilodaltons
	ec, ipr              string
}

var (
	betweenRE = regexp.MustCompile(`(?i)\bbetween\s+(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?\s+(?:and|to)\s+(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?`)
	spanRE    = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s*(?:-|to)\s*(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?\b`)
	atLeastRE = regexp.MustCompile(`(?i)(?:\bat least|\b(more|greater|heavier|larger|higher) than|\bover|\babove|(>)=?)\s*(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?`)
	atMostRE  = regexp.MustCompile(`(?i)(?:\bat most|\b(less|fewer|lighter|smaller|lower) than|\bunder|\bbelow|(<)=?)\s*(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?`)
	orMoreRE  = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?\s+or\s+(more|greater|higher|larger|above|over)\b`)
	orLessRE  = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s*(kda|kilodaltons?)?\s+or\s+(fewer|less|lower|smaller|below|under)\b`)
	ecRE      = regexp.MustCompile(`\b(\d+\.(?:\d+|-)(?:\.(?:\d+|-)){0,2})\b`)
	iprRE     = regexp.MustCompile(`(?i)\b(IPR\d{6}|PF\d{5})\b`)
	kDaRE     = regexp.MustCompile(`(?i)\d\s*(kda|kilodaltons?)\b`)
)

var (
	numberWords = map[string]string{"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
		"eight": "8", "nine": "9", "ten": "10", "single": "1", "twenty": "20"}
	numberWordsRE = regexp.MustCompile(`(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|single|twenty)\b`)
)

// wordValues reads the values a phrase states.
func wordValues(text string) phraseValues {
	var v phraseValues
	text = numberWordsRE.ReplaceAllStringFunc(text, func(w string) string { return numberWords[strings.ToLower(w)] })
	if m := ecRE.FindStringSubmatch(text); m != nil {
		v.ec = m[1]
		text = strings.Replace(text, m[1], " ", 1) // its digits are no range
	}
	v.ipr = strings.ToUpper(iprRE.FindString(text))
	v.kDa = kDaRE.MatchString(text)
	switch m := betweenRE.FindStringSubmatch(text); {
	case m != nil:
		v.min, v.max, v.kDa = m[1], m[3], m[2] != "" || m[4] != ""
	case orMoreRE.MatchString(text) || orLessRE.MatchString(text):
		if m := orMoreRE.FindStringSubmatch(text); m != nil {
			v.min, v.kDa = m[1], m[2] != ""
		}
		if m := orLessRE.FindStringSubmatch(text); m != nil {
			v.max, v.kDa = m[1], v.kDa || m[2] != ""
		}
	default:
		if m := spanRE.FindStringSubmatch(text); m != nil {
			v.min, v.max, v.kDa = m[1], m[2], m[3] != ""
		}
		if m := atLeastRE.FindStringSubmatch(text); m != nil {
			v.min, v.minStrict, v.kDa = m[3], m[1] != "" || m[2] != "", m[4] != ""
		}
		if m := atMostRE.FindStringSubmatch(text); m != nil {
			v.max, v.maxStrict, v.kDa = m[3], m[1] != "" || m[2] != "", v.kDa || m[4] != ""
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
	count := func(s string, strict bool, by int) string {
		n, err := strconv.Atoi(s)
		if err != nil || !strict || strings.Contains(name, "weight") {
			return scale(s)
		}
		return strconv.Itoa(n + by)
	}
	switch {
	case p.Type == "number-range" && (v.min != "" || v.max != ""):
		lo, hi := "", ""
		if p.Default != nil {
			var def struct{ Min, Max string }
			if json.Unmarshal([]byte(*p.Default), &def) == nil {
				lo, hi = def.Min, def.Max
			}
		}
		if v.min != "" {
			lo = count(v.min, v.minStrict, 1)
		}
		if v.max != "" {
			hi = count(v.max, v.maxStrict, -1)
		}
		b, err := json.Marshal(map[string]string{"min": lo, "max": hi})
		return string(b), err == nil
	case strings.HasPrefix(name, "min") && v.min != "":
		return count(v.min, v.minStrict, 1), true
	case strings.HasPrefix(name, "max") && v.max != "":
		return count(v.max, v.maxStrict, -1), true
	case strings.Contains(name, "ec_number") && v.ec != "":
		return v.ec, true
	case strings.Contains(name, "domain_typeahead") && v.ipr != "":
		return jsonList(v.ipr), true
	}
	return "", false
}

// cueSearch is the search a value in the words points to, whatever the
// ranking says: a mass in kDa is a molecular weight, an EC number an EC
// search, an InterPro or Pfam accession a domain search.
func (v phraseValues) cueSearch() string {
	switch {
	case v.ipr != "":
		return "Interpro"
	case v.ec != "":
		return "EcNumber"
	case v.kDa:
		return "MolecularWeight"
	}
	return ""
}
