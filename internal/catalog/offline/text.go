package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"strategist/internal/catalog"
)

// textIndex holds every gene's text fields as token lists, built once so a
// text search only compares tokens. The site's text search is a Solr index
// over many more fields; this covers gene id, symbol and previous ids, and
// product description, which is why offline text answers are approximate.
type textIndex struct {
	fields map[string][][]string // field term -> gene index -> tokens
}

func newTextIndex(d *Data) *textIndex {
	ix := &textIndex{fields: map[string][][]string{
		textFieldID:      make([][]string, len(d.genes)),
		textFieldAlias:   make([][]string, len(d.genes)),
		textFieldProduct: make([][]string, len(d.genes)),
	}}
	for i, g := range d.genes {
		ix.fields[textFieldID][i] = tokenize(g.ID, false)
		alias := tokenize(g.Symbol, false)
		for _, p := range g.PreviousIDs {
			alias = append(alias, tokenize(p, false)...)
		}
		ix.fields[textFieldAlias][i] = alias
		ix.fields[textFieldProduct][i] = tokenize(g.Product, false)
	}
	return ix
}

// tokenize lower-cases s and splits it into words of letters, digits, '_'
// and inner '.' (so gene ids and EC-like numbers stay whole); with wildcard,
// '*' also belongs to words.
func tokenize(s string, wildcard bool) []string {
	var out []string
	word := func(r rune) bool {
		return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || wildcard && r == '*') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
	}
	start := -1
	emit := func(end int) {
		if t := strings.Trim(s[start:end], "."); t != "" {
			out = append(out, strings.ToLower(t))
		}
		start = -1
	}
	for i, r := range s {
		switch {
		case word(r) && start < 0:
			start = i
		case !word(r) && start >= 0:
			emit(i)
		}
	}
	if start >= 0 {
		emit(len(s))
	}
	return out
}

// textQuery is a parsed text expression: a gene matches when any clause
// matches, and a clause matches when all of its phrases occur.
type textQuery [][][]string

// parseTextQuery reads the expression the way the site's search box is
// described: words are alternatives (OR) unless joined by AND, a quoted
// phrase must occur as written, and * is a wildcard inside a word. Upper-case
// AND and OR are operators; parentheses are ignored.
func parseTextQuery(expr string) textQuery {
	var (
		q       textQuery
		clause  [][]string
		pending bool // the previous item was AND
	)
	flush := func() {
		if len(clause) > 0 {
			q = append(q, clause)
		}
		clause = nil
	}
	addPhrase := func(p []string) {
		if len(p) == 0 {
			return
		}
		if !pending {
			flush()
		}
		clause = append(clause, p)
		pending = false
	}
	for _, item := range splitExpression(expr) {
		switch {
		case item.quoted:
			addPhrase(tokenize(item.text, true))
		case item.text == "AND" || item.text == "&&":
			pending = len(clause) > 0
		case item.text == "OR" || item.text == "||":
			pending = false
		default:
			addPhrase(tokenize(item.text, true))
		}
	}
	flush()
	return q
}

type exprItem struct {
	text   string
	quoted bool
}

// splitExpression cuts an expression into quoted phrases and bare words.
func splitExpression(expr string) []exprItem {
	var items []exprItem
	expr = strings.NewReplacer("(", " ", ")", " ").Replace(expr)
	for len(expr) > 0 {
		expr = strings.TrimLeft(expr, " \t\r\n")
		if expr == "" {
			break
		}
		if expr[0] == '"' {
			end := strings.IndexByte(expr[1:], '"')
			if end < 0 {
				items = append(items, exprItem{text: expr[1:], quoted: true})
				break
			}
			items = append(items, exprItem{text: expr[1 : end+1], quoted: true})
			expr = expr[end+2:]
			continue
		}
		end := strings.IndexAny(expr, " \t\r\n\"")
		if end < 0 {
			end = len(expr)
		}
		items = append(items, exprItem{text: expr[:end]})
		expr = expr[end:]
	}
	return items
}

// matches reports whether any of the token lists contains the query.
func (q textQuery) matches(fields [][]string) bool {
	for _, clause := range q {
		all := true
		for _, phrase := range clause {
			if !phraseIn(phrase, fields) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

func phraseIn(phrase []string, fields [][]string) bool {
	for _, toks := range fields {
		for start := 0; start+len(phrase) <= len(toks); start++ {
			ok := true
			for k, p := range phrase {
				if !globMatch(p, toks[start+k]) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// byText evaluates GenesByText over the selected fields.
func (c *Catalog) byText(s *step) ([]int32, error) {
	name := s.def.search.Name
	if err := requireOrganism(name, "text_search_organism", s.params["text_search_organism"]); err != nil {
		return nil, err
	}
	if dt := s.params["document_type"]; dt != "gene" {
		return nil, notEvaluable(name, "document_type %q: only gene documents are searched offline", dt)
	}
	fields, _ := catalog.DecodeTerms(s.params["text_fields"])
	var cols [][][]string
	for _, f := range fields {
		if col, ok := c.text.fields[f]; ok {
			cols = append(cols, col)
		}
	}
	q := parseTextQuery(s.params["text_expression"])
	var out []int32
	buf := make([][]string, len(cols))
	for i := range c.data.genes {
		for k, col := range cols {
			buf[k] = col[i]
		}
		if q.matches(buf) {
			out = append(out, int32(i))
		}
	}
	return out, nil
}
