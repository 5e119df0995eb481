package web

import (
	"regexp"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// GOTermURL is a GO term's page on AmiGO, the Gene Ontology Consortium's
// browser: the one place Strategist makes GO term links.
func GOTermURL(id string) string { return "https://amigo.geneontology.org/amigo/term/" + id }

// goIDRE matches a GO id in running text.
var goIDRE = regexp.MustCompile(`\bGO:[0-9]{7}\b`)

// textPart is a piece of text: plain, or a GO id to link.
type textPart struct {
	Text string
	GOID bool
}

// goParts splits s into plain text and GO ids, in order.
func goParts(s string) []textPart {
	var out []textPart
	last := 0
	for _, m := range goIDRE.FindAllStringIndex(s, -1) {
		if m[0] > last {
			out = append(out, textPart{Text: s[last:m[0]]})
		}
		out = append(out, textPart{Text: s[m[0]:m[1]], GOID: true})
		last = m[1]
	}
	if last < len(s) {
		out = append(out, textPart{Text: s[last:]})
	}
	return out
}

// runningTexts are the text nodes of doc's running text: not those inside
// links, images, code or raw HTML, which the linkers leave as written.
func runningTexts(doc *ast.Document) []*ast.Text {
	var texts []*ast.Text
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindLink, ast.KindAutoLink, ast.KindImage, ast.KindCodeSpan, ast.KindCodeBlock, ast.KindFencedCodeBlock, ast.KindRawHTML:
			return ast.WalkSkipChildren, nil
		case ast.KindText:
			texts = append(texts, n.(*ast.Text))
		}
		return ast.WalkContinue, nil
	})
	return texts
}

// goLinker links the GO ids of markdown's running text to their term
// pages (GOTermURL); ids inside links and code stay as written.
type goLinker struct{}

// Transform implements parser.ASTTransformer.
func (goLinker) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	for _, t := range runningTexts(doc) {
		linkMatches(src, t, goIDRE.FindAllIndex(t.Segment.Value(src), -1), func(id string) *ast.Link {
			link := ast.NewLink()
			link.Destination = []byte(GOTermURL(id))
			return link
		})
	}
}

// linkMatches replaces text node t by its text with each match (byte
// offsets within t) made a link by newLink, given the matched text; what
// follows the last match keeps t's line break. No matches leave t alone.
func linkMatches(src []byte, t *ast.Text, matches [][]int, newLink func(id string) *ast.Link) {
	if len(matches) == 0 {
		return
	}
	seg := t.Segment
	parent := t.Parent()
	at := seg.Start
	for _, m := range matches {
		start, stop := seg.Start+m[0], seg.Start+m[1]
		if start > at {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(at, start)))
		}
		link := newLink(string(src[start:stop]))
		link.AppendChild(link, ast.NewTextSegment(text.NewSegment(start, stop)))
		parent.InsertBefore(parent, t, link)
		at = stop
	}
	rest := ast.NewTextSegment(text.NewSegment(at, seg.Stop))
	rest.SetSoftLineBreak(t.SoftLineBreak())
	rest.SetHardLineBreak(t.HardLineBreak())
	parent.ReplaceChild(parent, t, rest)
}
