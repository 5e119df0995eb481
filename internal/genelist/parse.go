package genelist

import (
	"encoding/csv"
	"strings"
	"unicode"
)

// Parse reads the identifiers of a pasted or uploaded list, in order, as
// written. It takes plain text with any separators (new lines, spaces,
// tabs, commas, semicolons, pipes; quotes around an id are dropped) and
// tables (CSV or TSV, such as a VEuPathDB download). The first line is a
// header, and is skipped, when it has no digit: every gene id, current or
// previous, has one, so no id is ever taken for a header. A header with
// several tab- or comma-separated columns makes the text a table, whose id
// column (the first whose header says "id", else the first) is read.
func Parse(text string) []string {
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first == len(lines) {
		return nil
	}
	header := lines[first]
	if strings.ContainsFunc(header, unicode.IsDigit) {
		return tokens(strings.Join(lines[first:], "\n"))
	}
	rest := strings.Join(lines[first+1:], "\n")
	for _, sep := range []rune{'\t', ','} {
		if cols := splitRecord(header, sep); len(cols) > 1 {
			return column(rest, sep, idColumn(cols))
		}
	}
	return tokens(rest)
}

// tokens splits text on every separator a list may use.
func tokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, isSeparator) {
		if id := strings.Trim(f, `"'`); id != "" {
			out = append(out, id)
		}
	}
	return out
}

func isSeparator(r rune) bool {
	return unicode.IsSpace(r) || r == ',' || r == ';' || r == '|'
}

// idColumn is the first column whose header names an id, else the first.
func idColumn(header []string) int {
	for i, h := range header {
		h = strings.ToLower(h)
		if h == "id" || strings.Contains(h, "gene id") || strings.Contains(h, "gene_id") || strings.Contains(h, "source_id") || strings.HasSuffix(h, " id") {
			return i
		}
	}
	return 0
}

// splitRecord reads one line of a table.
func splitRecord(line string, sep rune) []string {
	r := csv.NewReader(strings.NewReader(line))
	r.Comma = sep
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil {
		return nil
	}
	return rec
}

// column reads column col of every row of a table; a row that is short
// or unreadable as a record gives all its tokens (ids pasted under a
// header), never nothing.
func column(text string, sep rune, col int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		rec := splitRecord(line, sep)
		if col < len(rec) {
			out = append(out, tokens(rec[col])...)
			continue
		}
		out = append(out, tokens(line)...)
	}
	return out
}
