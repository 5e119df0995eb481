package wdk

import (
	"encoding/json"
	"strconv"
)

// SearchConfig is a step's answer spec. Parameter values use WDK's string
// encoding: multi-pick values are JSON-array strings, input-step parameters
// are "" on creation (the step tree wires inputs).
type SearchConfig struct {
	Parameters    map[string]string `json:"parameters"`
	WDKWeight     *int              `json:"wdkWeight,omitempty"`
	Filters       []StepFilter      `json:"filters,omitempty"`
	ColumnFilters json.RawMessage   `json:"columnFilters,omitempty"`
}

// StepFilter is one filter of a step's answer spec.
type StepFilter struct {
	Name     string          `json:"name"`
	Value    json.RawMessage `json:"value"`
	Disabled bool            `json:"disabled"`
}

// NewStep is the body of POST /users/{id}/steps. WDK rejects other keys.
type NewStep struct {
	SearchName         string          `json:"searchName"`
	SearchConfig       SearchConfig    `json:"searchConfig"`
	CustomName         string          `json:"customName,omitempty"`
	Expanded           *bool           `json:"expanded,omitempty"`
	ExpandedName       string          `json:"expandedName,omitempty"`
	DisplayPreferences json.RawMessage `json:"displayPreferences,omitempty"`
}

// StepMeta is the body of PATCH /users/{id}/steps/{step}: only the fields
// set change.
type StepMeta struct {
	CustomName         *string         `json:"customName,omitempty"`
	Expanded           *bool           `json:"expanded,omitempty"`
	ExpandedName       *string         `json:"expandedName,omitempty"`
	DisplayPreferences json.RawMessage `json:"displayPreferences,omitempty"`
}

// Step is a step as WDK returns it.
type Step struct {
	ID           int64
	SearchName   string
	RecordType   string // url segment (full class name on some deployments)
	CustomName   string
	DisplayName  string
	StrategyID   *int64
	SearchConfig SearchConfig
	// EstimatedSize is the step's display result size (genes for gene
	// searches); nil when WDK has not computed it.
	EstimatedSize *int64
	Validation    Validation
}

type wireStep struct {
	ID              optInt         `json:"id"`
	SearchName      text           `json:"searchName"`
	RecordClassName text           `json:"recordClassName"`
	CustomName      text           `json:"customName"`
	DisplayName     text           `json:"displayName"`
	StrategyID      optInt         `json:"strategyId"`
	EstimatedSize   optInt         `json:"estimatedSize"`
	Validation      wireValidation `json:"validation"`
	SearchConfig    struct {
		Parameters    textMap         `json:"parameters"`
		WDKWeight     optInt          `json:"wdkWeight"`
		Filters       []StepFilter    `json:"filters"`
		ColumnFilters json.RawMessage `json:"columnFilters"`
	} `json:"searchConfig"`
}

func (w *wireStep) step() Step {
	s := Step{
		ID:          w.ID.V,
		SearchName:  string(w.SearchName),
		RecordType:  string(w.RecordClassName),
		CustomName:  string(w.CustomName),
		DisplayName: string(w.DisplayName),
		StrategyID:  w.StrategyID.ptr(),
		SearchConfig: SearchConfig{
			Parameters:    w.SearchConfig.Parameters,
			Filters:       w.SearchConfig.Filters,
			ColumnFilters: w.SearchConfig.ColumnFilters,
		},
		Validation: w.Validation.validation(),
	}
	if s.SearchConfig.Parameters == nil {
		s.SearchConfig.Parameters = map[string]string{}
	}
	if w.SearchConfig.WDKWeight.OK {
		v := int(w.SearchConfig.WDKWeight.V)
		s.SearchConfig.WDKWeight = &v
	}
	// WDK suppresses null or negative sizes; treat a negative one the same.
	if w.EstimatedSize.OK && w.EstimatedSize.V >= 0 {
		s.EstimatedSize = w.EstimatedSize.ptr()
	}
	return s
}

// StepTree is a strategy's tree of step ids. Input order is the
// declaration order of the search's input-step parameters: for a boolean,
// the left operand is primaryInput.
type StepTree struct {
	StepID         int64     `json:"stepId"`
	PrimaryInput   *StepTree `json:"primaryInput,omitempty"`
	SecondaryInput *StepTree `json:"secondaryInput,omitempty"`
}

// NewStrategy is the body of POST /users/{id}/strategies.
type NewStrategy struct {
	Name        string   `json:"name"`
	IsSaved     bool     `json:"isSaved"`
	IsPublic    bool     `json:"isPublic"`
	StepTree    StepTree `json:"stepTree"`
	Description string   `json:"description,omitempty"`
	SavedName   string   `json:"savedName,omitempty"`
}

// Strategy is a strategy as WDK returns it, with its steps.
type Strategy struct {
	ID            int64
	Name          string
	RootStepID    int64
	RecordType    string
	Signature     string
	IsSaved       bool
	IsValid       bool
	EstimatedSize *int64
	StepTree      StepTree
	Steps         map[int64]Step
}

type wireStrategy struct {
	StrategyID      optInt              `json:"strategyId"`
	Name            text                `json:"name"`
	RootStepID      optInt              `json:"rootStepId"`
	RecordClassName text                `json:"recordClassName"`
	Signature       text                `json:"signature"`
	IsSaved         flag                `json:"isSaved"`
	IsValid         *flag               `json:"isValid"`
	EstimatedSize   optInt              `json:"estimatedSize"`
	StepTree        StepTree            `json:"stepTree"`
	Steps           map[string]wireStep `json:"steps"`
}

func (w *wireStrategy) strategy() Strategy {
	s := Strategy{
		ID:         w.StrategyID.V,
		Name:       string(w.Name),
		RootStepID: w.RootStepID.V,
		RecordType: string(w.RecordClassName),
		Signature:  string(w.Signature),
		IsSaved:    bool(w.IsSaved),
		IsValid:    w.IsValid == nil || bool(*w.IsValid),
		StepTree:   w.StepTree,
		Steps:      make(map[int64]Step, len(w.Steps)),
	}
	if w.EstimatedSize.OK && w.EstimatedSize.V >= 0 {
		s.EstimatedSize = w.EstimatedSize.ptr()
	}
	for k, ws := range w.Steps {
		st := ws.step()
		if st.ID == 0 {
			st.ID, _ = strconv.ParseInt(k, 10, 64)
		}
		s.Steps[st.ID] = st
	}
	return s
}

// ReportConfig is the standard reporter's configuration.
type ReportConfig struct {
	Pagination Pagination `json:"pagination"`
	Attributes []string   `json:"attributes,omitempty"`
	Tables     []string   `json:"tables,omitempty"`
	Sorting    []Sort     `json:"sorting,omitempty"`
}

// Pagination selects records of a report.
type Pagination struct {
	Offset     int `json:"offset"`
	NumRecords int `json:"numRecords"`
}

// Sort orders a report by an attribute (ASC or DESC).
type Sort struct {
	AttributeName string `json:"attributeName"`
	Direction     string `json:"direction"`
}

// Report is a standard report: counts and a page of records.
type Report struct {
	// TotalCount counts records (transcripts for gene searches).
	TotalCount int64
	// DisplayTotalCount counts what the site shows (genes for gene
	// searches); nil when WDK did not send it.
	DisplayTotalCount *int64
	Records           []ReportRecord
}

// ReportRecord is one record of a report.
type ReportRecord struct {
	// ID is the primary key, column by column (for transcripts:
	// gene_source_id, source_id, project_id).
	ID          []KeyPart
	DisplayName string
	Attributes  map[string]string
}

// KeyPart is one primary-key column of a record.
type KeyPart struct {
	Name  string
	Value string
}

// Key returns the named primary-key column's value.
func (r *ReportRecord) Key(name string) (string, bool) {
	for _, p := range r.ID {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

type wireReport struct {
	Records []struct {
		ID []struct {
			Name  text `json:"name"`
			Value text `json:"value"`
		} `json:"id"`
		DisplayName text    `json:"displayName"`
		Attributes  textMap `json:"attributes"`
	} `json:"records"`
	Meta struct {
		TotalCount        optInt `json:"totalCount"`
		DisplayTotalCount optInt `json:"displayTotalCount"`
	} `json:"meta"`
}

func (w *wireReport) report() Report {
	r := Report{TotalCount: w.Meta.TotalCount.V, DisplayTotalCount: w.Meta.DisplayTotalCount.ptr()}
	r.Records = make([]ReportRecord, 0, len(w.Records))
	for _, wr := range w.Records {
		rec := ReportRecord{DisplayName: string(wr.DisplayName), Attributes: wr.Attributes}
		for _, p := range wr.ID {
			rec.ID = append(rec.ID, KeyPart{Name: string(p.Name), Value: string(p.Value)})
		}
		r.Records = append(r.Records, rec)
	}
	return r
}
