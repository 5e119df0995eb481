package rules

import (
	"strings"

	"strategist/internal/english"
)

// recordType is the record type of gene searches.
const recordType = "transcript"

// need is a kind of search a clause may need.
type need int

// The searches the engine knows how to fill, in the order it looks for
// them.
const (
	needGO need = iota
	needGeneType
	needLocation
	needIDs
	needTaxon
	needText
	numNeeds
)

// searchNeeds says how each search is found (the words given to
// search_for_searches) and which search name is expected among the hits.
var searchNeeds = [numNeeds]struct{ query, search, what string }{
	needGO:       {"GO term biological process", "GenesByGoTerm", "GO biological process terms"},
	needGeneType: {"gene type", "GenesByGeneType", "gene types"},
	needLocation: {"chromosome location", "GenesByLocation", "chromosomes"},
	needIDs:      {"gene id", "GeneByLocusTag", "gene ids"},
	needTaxon:    {"organism", "GenesByTaxon", "all genes of an organism"},
	needText:     {"text", "GenesByText", "words in gene annotation"},
}

// The parameters the engine fills, by search.
const (
	paramGO         = "go_typeahead"
	paramGeneType   = "geneType"
	paramChromosome = "chromosomeOptional"
	paramIDs        = "ds_gene_ids"
	paramText       = "text_expression"
	paramEvidence   = "go_term_evidence"
)

// Wire forms of the catalog tools' results: only the fields read.
type (
	searchHits struct {
		Searches []struct {
			Name        string  `json:"name"`
			DisplayName string  `json:"displayName"`
			Kind        string  `json:"kind"`
			Evaluable   bool    `json:"evaluable"`
			Score       float64 `json:"score"`
		} `json:"searches"`
	}
	wireTerm struct {
		Term    string `json:"term"`
		Display string `json:"display"`
		Parent  string `json:"parent"`
		Synonym string `json:"synonym"` // the synonym a vocabulary query found the term by
		// Synonyms are the synonyms that hold a query's words, when
		// more than one does.
		Synonyms []string `json:"synonyms"`
	}
	wireParam struct {
		Name     string     `json:"name"`
		Type     string     `json:"type"`
		Required bool       `json:"required"`
		Default  *string    `json:"default"`
		Values   []wireTerm `json:"values"`
		// Suggestions are the terms nearest in spelling to a vocabulary
		// query that matched none: readings of a typo, not matches.
		Suggestions []wireTerm `json:"suggestions"`
		Size        int        `json:"vocabularySize"`
		Matches     int        `json:"matches"` // how many terms a vocabulary query matched
	}
	searchDetails struct {
		Name        string      `json:"name"`
		DisplayName string      `json:"displayName"`
		Evaluable   bool        `json:"evaluable"`
		OfflineNote string      `json:"offlineNote"`
		Parameters  []wireParam `json:"parameters"`
	}
	// geneMatches is what lookup_genes answers.
	geneMatches struct {
		Genes     []geneMatch `json:"genes"`
		Unmatched []string    `json:"unmatched"`
	}
	// geneMatch is one gene lookup_genes found.
	geneMatch struct {
		GeneID      string   `json:"geneId"`
		Symbol      string   `json:"symbol"`
		Product     string   `json:"product"`
		GeneType    string   `json:"geneType"`
		Chromosome  string   `json:"chromosome"`
		PreviousIDs []string `json:"previousIds"`
		Processes   []struct {
			Term    string `json:"term"`
			Display string `json:"display"`
		} `json:"goProcesses"`
		MatchedOn string `json:"matchedOn"`
		Matched   string `json:"matched"`
	}
)

func (d *searchDetails) param(name string) (*wireParam, bool) {
	for i := range d.Parameters {
		if d.Parameters[i].Name == name {
			return &d.Parameters[i], true
		}
	}
	return nil, false
}

func searchCall(n need) call {
	return newCall("search_for_searches", map[string]any{"query": searchNeeds[n].query, "record_type": recordType, "limit": 5})
}

// phraseSearchCall asks which searches a term's own words describe, so a
// phrase such as "predicted signal peptide" finds GenesWithSignalPeptide
// rather than a text search.
func phraseSearchCall(c *english.Clause) call {
	return newCall("search_for_searches", map[string]any{"query": finderQuery(c), "record_type": recordType, "limit": 3})
}

// hostWords name the host, or a cell, in general. They are left out of a
// phrase's own search for searches, so that a search about the host cell
// (exported proteins) is found by what the phrase says about it ("exported
// to the host cell"), not by every phrase that names the host ("genes
// interacting with the host").
var hostWords = english.WordSet("host hosts cell cells human humans erythrocyte erythrocytes")

// finderQuery is a term's words as its search for searches sends them:
// without the words that only name the host.
func finderQuery(c *english.Clause) string {
	var words []string
	for _, w := range strings.Fields(c.Text) {
		if !hostWords[strings.ToLower(w)] {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

func paramsCall(search, vocabularyQuery string) call {
	args := map[string]any{"record_type": recordType, "search_name": search}
	if vocabularyQuery != "" {
		args["vocabulary_query"] = vocabularyQuery
	}
	return newCall("get_search_parameters", args)
}

// listCall finds the researcher's gene list by name.
func listCall(name string) call {
	return newCall("find_gene_list", map[string]any{"name": name})
}

func lookupCall(ids []string) call {
	return newCall("lookup_genes", map[string]any{"query": strings.Join(ids, " "), "limit": 100})
}
