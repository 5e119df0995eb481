package eventtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"strategist/internal/event"
)

// stepID matches the strategy's step ids, which depend on which sub-agent
// wrote first.
var stepID = regexp.MustCompile(`\bs[0-9]+\b`)

// strategyVersion matches the version a tool result reports, which also
// depends on the interleaving.
var strategyVersion = regexp.MustCompile(`"strategyVersion":[0-9]+`)

// Canonical renders a transcript in which sub-agents ran in parallel in a
// form that does not depend on how they interleaved: the turn's own events in
// order, then, node by node (sorted by node id), each delegation node's
// events in order, then the graph snapshots, then whether the conversation
// was titled (titles follow the result step, whose intermediate names
// depend on the interleaving too). Snapshots keep only their
// version (intermediate
// graphs depend on the interleaving; the final one is checked by the tests
// directly), step ids become <step> and the strategy versions tool results
// report <v>; the rest is masked as Mask does.
func Canonical(records []event.Record) string {
	var main, graph, title []event.Record
	nodes := map[string][]event.Record{}
	for _, r := range records {
		var p struct {
			NodeID  string `json:"nodeId"`
			Version int    `json:"version"`
		}
		_ = json.Unmarshal(r.Payload, &p)
		if r.Type == "graph_snapshot" {
			// Snapshots come from the strategy service as changes commit;
			// where they fall among the sub-agents' batched events depends
			// on timing, so they get a lane of their own.
			r.Payload = json.RawMessage(fmt.Sprintf(`{"version":%d}`, p.Version))
			graph = append(graph, r)
			continue
		}
		if r.Type == "conversation_renamed" {
			// The title follows the strategy's result step: while
			// sub-agents build, which intermediate version has a single
			// root (and when) is timing, so the transcript says only
			// that the conversation was titled (the tests check the
			// final strategy directly).
			r.Payload = json.RawMessage(`{"title":"<title>"}`)
			title = []event.Record{r}
			continue
		}
		if p.NodeID != "" {
			nodes[p.NodeID] = append(nodes[p.NodeID], r)
			continue
		}
		main = append(main, r)
	}
	ids := make([]string, 0, len(nodes))
	for id := range nodes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return nodeOrder(ids[i]) < nodeOrder(ids[j]) })
	ordered := append([]event.Record{}, main...)
	for _, id := range ids {
		ordered = append(ordered, nodes[id]...)
	}
	ordered = append(ordered, graph...)
	ordered = append(ordered, title...)
	out := stepID.ReplaceAllString(Mask(ordered), "<step>")
	return strategyVersion.ReplaceAllString(out, `"strategyVersion":"<v>"`)
}

// nodeOrder sorts n2 before n10.
func nodeOrder(id string) string {
	return fmt.Sprintf("%08s", strings.TrimPrefix(id, "n"))
}
