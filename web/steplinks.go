package web

import (
	"regexp"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Step ids (s1, s12) are the one name a step has everywhere on the
// conversation page: its box in the graph, the sub-agent node that built
// it, and the assistant's words. A step id in the chat's running text that
// names a step of the strategy becomes a link to its box (#step-s5); the
// page's script opens the step's results from it, and hovering or focusing
// any of them marks the others with the same data-step-id. The link's title
// is the step's name as it is now, so an old message's "s5" tells what s5
// holds today rather than what it held when the message was written.

// stepIDRE matches a step id in running text.
var stepIDRE = regexp.MustCompile(`\bs[0-9]{1,6}\b`)

// stepMentionRE is the class the sanitiser lets through on step links.
var stepMentionRE = regexp.MustCompile(`^step-link step-mention$`)

// stepIDAttrRE is a step id as the sanitiser lets it through.
var stepIDAttrRE = regexp.MustCompile(`^s[0-9]{1,6}$`)

// stepsKey carries the strategy's steps (id to current name) to stepLinker.
var stepsKey = parser.NewContextKey()

// StepAnchor is the element id of a step's box in the graph.
func StepAnchor(id string) string { return "step-" + id }

// stepLinker links the step ids of markdown's running text that name a step
// in the set the context carries; ids inside links and code stay as
// written.
type stepLinker struct{}

// Transform implements parser.ASTTransformer.
func (stepLinker) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	steps, _ := pc.Get(stepsKey).(map[string]string)
	if len(steps) == 0 {
		return
	}
	src := reader.Source()
	for _, t := range runningTexts(doc) {
		var matches [][]int
		for _, m := range stepIDRE.FindAllIndex(t.Segment.Value(src), -1) {
			if _, ok := steps[string(t.Segment.Value(src)[m[0]:m[1]])]; ok {
				matches = append(matches, m)
			}
		}
		linkMatches(src, t, matches, func(id string) *ast.Link {
			link := ast.NewLink()
			link.Destination = []byte("#" + StepAnchor(id))
			link.SetAttributeString("class", []byte("step-link step-mention"))
			link.SetAttributeString("data-step-id", []byte(id))
			if name := steps[id]; name != "" {
				link.Title = []byte(name)
			}
			return link
		})
	}
}
