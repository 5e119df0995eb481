package web

import (
	"bytes"
	"html"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// Markdown renders untrusted markdown (what models and planning artifacts
// say) to HTML that is safe to put in a page: goldmark without raw HTML,
// then bluemonday's user-generated-content policy, which also drops every
// attribute htmx would act on. Safe for concurrent use.
type Markdown struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

// NewMarkdown returns a renderer with GitHub-flavoured tables, strikethrough
// and autolinks; GO ids in running text link to their term pages
// (GOTermURL). Links to other sites open in a new tab, without referrer
// or opener.
func NewMarkdown() *Markdown {
	p := bluemonday.UGCPolicy()
	p.AddTargetBlankToFullyQualifiedLinks(true)
	p.RequireNoReferrerOnFullyQualifiedLinks(true)
	p.AllowAttrs("class").Matching(stepMentionRE).OnElements("a")
	p.AllowAttrs("data-step-id").Matching(stepIDAttrRE).OnElements("a")
	p.AllowAttrs("title").OnElements("a")
	return &Markdown{
		md: goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
			goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(goLinker{}, 1000), util.Prioritized(stepLinker{}, 1001)))),
		policy: p,
	}
}

// HTML returns the sanitised HTML of src. Should goldmark fail (it accepts
// any text), the source is shown escaped in a <pre>.
func (m *Markdown) HTML(src string) string { return m.HTMLWithSteps(src, nil) }

// HTMLWithSteps is HTML with the ids of steps (the strategy's, each with
// its current name) linked to their boxes in the graph (stepLinker).
func (m *Markdown) HTMLWithSteps(src string, steps map[string]string) string {
	var buf bytes.Buffer
	pc := parser.NewContext()
	pc.Set(stepsKey, steps)
	if err := m.md.Convert([]byte(src), &buf, parser.WithContext(pc)); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return string(m.policy.SanitizeBytes(buf.Bytes()))
}
