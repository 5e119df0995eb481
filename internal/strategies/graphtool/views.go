package graphtool

import (
	"fmt"
	"strings"

	"strategist/internal/catalog"
	"strategist/internal/strategy"
)

// Count is what is known about a step's count. Value is set only with
// status ok; every other status carries a message instead of a number.
type Count struct {
	Status strategy.CountStatus `json:"status"` // ok, not_evaluable, error or unknown
	Value  *int                 `json:"value,omitempty"`
	// Message says why there is no number ("count unavailable offline:
	// ...") or that the number is approximate.
	Message string `json:"message,omitempty"`
	// Provenance names the data the number comes from.
	Provenance  string `json:"provenance,omitempty"`
	Approximate bool   `json:"approximate,omitempty"`
}

// StepView is one step as the tools show it.
type StepView struct {
	StepID      strategy.StepID `json:"stepId"`
	Kind        strategy.Kind   `json:"kind"` // search, transform or combine
	SearchName  string          `json:"searchName"`
	DisplayName string          `json:"displayName"`
	// Parameters are the values as the catalog validated and completed
	// them (defaults filled in, WDK string encoding); a combine shows its
	// operator instead.
	Parameters map[string]string    `json:"parameters,omitempty"`
	Operator   strategy.Operator    `json:"operator,omitempty"`
	Colocation *strategy.Colocation `json:"colocation,omitempty"`
	Inputs     []strategy.StepID    `json:"inputs,omitempty"` // primary first
	Weight     int                  `json:"weight,omitempty"`
	Count      Count                `json:"count"`
}

// Root is a step nothing consumes yet: what the next transform or combine
// can take as input.
type Root struct {
	StepID      strategy.StepID `json:"stepId"`
	DisplayName string          `json:"displayName"`
}

// messageUnavailable starts the message of a count the catalog cannot
// compute, so a model reports it as unavailable rather than as zero.
const messageUnavailable = "count unavailable offline"

// countOf describes a recorded or computed count.
func countOf(status strategy.CountStatus, value *int, message string, prov *catalog.Provenance) Count {
	c := Count{Status: status}
	switch status {
	case strategy.CountOK:
		if value != nil {
			n := *value
			c.Value = &n
		}
	case strategy.CountNotEvaluable:
		c.Message = messageUnavailable
		if reason := strings.TrimPrefix(message, "catalog: "); reason != "" {
			c.Message += ": " + reason
		}
	case strategy.CountError:
		c.Message = message
		if c.Message == "" {
			c.Message = "the count failed; it is tried again with the next change"
		}
	default:
		c.Message = "not counted yet; call get_result_count"
	}
	if prov != nil {
		c.Provenance = provenance(*prov)
		c.Approximate = prov.Approximate
		if prov.Approximate && c.Message == "" {
			c.Message = prov.Note
		}
	}
	return c
}

// provenance is a short source line: "PlasmoDB export (offline snapshot),
// 2017".
func provenance(p catalog.Provenance) string {
	s := p.Source
	if p.Year != 0 {
		s += fmt.Sprintf(", %d", p.Year)
	}
	return s
}

func stepView(s strategy.Step) StepView {
	v := StepView{
		StepID: s.ID, Kind: s.Kind, SearchName: s.SearchName, DisplayName: s.DisplayName,
		Operator: s.Operator, Colocation: s.Colocation, Inputs: s.Inputs, Weight: s.Weight,
		Count: countOf(s.CountStatus, s.Count, s.CountMessage, s.CountProvenance),
	}
	if s.Kind != strategy.KindCombine {
		v.Parameters = s.Parameters
	}
	if len(v.Inputs) == 0 {
		v.Inputs = nil
	}
	return v
}

// roots lists the snapshot's roots the caller may use.
func (t *tools) roots(snap strategy.Snapshot) []Root {
	ids := t.scope.filter(snap.Roots)
	out := make([]Root, 0, len(ids))
	for _, id := range ids {
		r := Root{StepID: id}
		if s, ok := snap.Step(id); ok {
			r.DisplayName = s.DisplayName
		}
		out = append(out, r)
	}
	return out
}

// StrategyView is the whole strategy as list_steps and undo_last_change
// show it.
type StrategyView struct {
	// StrategyID is empty when the conversation has no strategy yet.
	StrategyID string          `json:"strategyId,omitempty"`
	Name       string          `json:"name,omitempty"`
	RecordType string          `json:"recordType,omitempty"`
	Version    int             `json:"version"`
	Steps      []StepView      `json:"steps"`
	Roots      []Root          `json:"roots"`
	RootStepID strategy.StepID `json:"rootStepId,omitempty"`
}

func (t *tools) strategyView(snap strategy.Snapshot) StrategyView {
	v := StrategyView{StrategyID: snap.StrategyID, Name: snap.Name, RecordType: snap.RecordType, Version: snap.Version,
		Steps: make([]StepView, len(snap.Steps)), Roots: t.roots(snap), RootStepID: snap.RootStepID}
	for i, s := range snap.Steps {
		v.Steps[i] = stepView(s)
	}
	return v
}
