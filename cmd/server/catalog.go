package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"strategist/internal/catalog"
)

const catalogUsage = `usage:
  strategist catalog search [-site S] [-limit N] [-type T] <words...>
  strategist catalog describe [-site S] [-terms N] <search>
  strategist catalog count [-site S] [-weight W] [-records N] <search> [name=value ...]
  strategist catalog count [-site S] [-records N] -tree '<query JSON>'

Parameter values use WDK's encoding: multi-pick values are JSON arrays
(go_typeahead='["GO:0006412"]'); a single term may be given bare.
A query tree is {"searchName":..., "parameters":{...}, "wdkWeight":N, "inputs":[...]}.`

// runCatalog explores a catalog from a terminal: rank searches for a need,
// show a search's parameters, or count a search's (or a strategy tree's)
// genes with the answer's provenance.
func runCatalog(ctx context.Context, cat catalog.Catalog, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stdout, catalogUsage)
		return errors.New("catalog: missing subcommand (search, describe or count)")
	}
	switch args[0] {
	case "search":
		return catalogSearch(ctx, cat, args[1:], stdout)
	case "describe":
		return catalogDescribe(ctx, cat, args[1:], stdout)
	case "count":
		return catalogCount(ctx, cat, args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, catalogUsage)
		return nil
	}
	fmt.Fprintln(stdout, catalogUsage)
	return fmt.Errorf("catalog: unknown subcommand %q", args[0])
}

func catalogFlags(name string, stdout io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("catalog "+name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() { fmt.Fprintln(stdout, catalogUsage) }
	site := fs.String("site", "plasmodb", "site id")
	return fs, site
}

func catalogSearch(ctx context.Context, cat catalog.Catalog, args []string, stdout io.Writer) error {
	fs, site := catalogFlags("search", stdout)
	limit := fs.Int("limit", 10, "most searches to list (0 = all)")
	recordType := fs.String("type", "", "record type to restrict to (e.g. transcript)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("catalog search: %w", err)
	}
	query := strings.Join(fs.Args(), " ")
	found, err := cat.SearchForSearches(ctx, *site, query, *recordType, *limit)
	if err != nil {
		return fmt.Errorf("catalog search: %w", err)
	}
	if len(found) == 0 {
		fmt.Fprintf(stdout, "No search matches %q.\n", query)
		return nil
	}
	width := 0
	for _, s := range found {
		width = max(width, len(s.Name))
	}
	for i, s := range found {
		offline := "evaluable offline"
		if !s.Evaluable {
			offline = "not evaluable offline"
		}
		fmt.Fprintf(stdout, "%2d. %-*s  %s  [score %.2f, %s]\n", i+1, width, s.Name, s.DisplayName, s.Score, offline)
		if s.Summary != "" {
			fmt.Fprintf(stdout, "    %-*s  %s\n", width, "", s.Summary)
		}
	}
	return nil
}

// offlineNoter is implemented by catalogs that can say what their offline
// snapshot answers for a search.
type offlineNoter interface {
	OfflineNote(search string) string
}

func catalogDescribe(ctx context.Context, cat catalog.Catalog, args []string, stdout io.Writer) error {
	fs, site := catalogFlags("describe", stdout)
	maxTerms := fs.Int("terms", 12, "vocabulary terms to show per parameter (0 = all)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("catalog describe: %w", err)
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stdout, catalogUsage)
		return errors.New("catalog describe: give one search name")
	}
	s, err := cat.Search(ctx, *site, "", fs.Arg(0))
	if err != nil {
		return fmt.Errorf("catalog describe: %w", err)
	}
	fmt.Fprintf(stdout, "%s: %s", s.Name, s.DisplayName)
	if s.FullName != "" {
		fmt.Fprintf(stdout, " (%s)", s.FullName)
	}
	fmt.Fprintf(stdout, "\nrecord type %s, %s search", s.RecordType, s.Kind)
	if len(s.InputParams) > 0 {
		fmt.Fprintf(stdout, " with inputs %s", strings.Join(s.InputParams, ", "))
	}
	if s.Evaluable {
		fmt.Fprintln(stdout, ", evaluable")
	} else {
		fmt.Fprintln(stdout, ", not evaluable offline")
	}
	for _, text := range []string{s.Summary, s.Description} {
		if text != "" {
			fmt.Fprintln(stdout, "\n"+text)
		}
	}
	if n, ok := cat.(offlineNoter); ok {
		if note := n.OfflineNote(s.Name); note != "" {
			fmt.Fprintln(stdout, "\nOffline: "+note)
		}
	}
	fmt.Fprintln(stdout, "\nParameters:")
	for _, p := range s.Params {
		describeParam(stdout, p, *maxTerms)
	}
	return nil
}

func describeParam(w io.Writer, p catalog.Param, maxTerms int) {
	kind := string(p.Type)
	if p.IsNumber {
		kind += ", number"
	}
	if p.DisplayType != "" {
		kind += ", " + p.DisplayType
	}
	var flags []string
	if !p.IsVisible {
		flags = append(flags, "hidden")
	}
	if p.IsReadOnly {
		flags = append(flags, "read-only")
	}
	switch {
	case p.Type == catalog.ParamInputStep:
		flags = append(flags, "input step, leave empty")
	case p.HasDefault:
		flags = append(flags, fmt.Sprintf("default %q", p.Default))
	case p.AllowEmpty:
		flags = append(flags, "optional")
	default:
		flags = append(flags, "required")
	}
	if p.MaxSelected > 1 {
		flags = append(flags, fmt.Sprintf("at most %d", p.MaxSelected))
	}
	if len(p.DependentParams) > 0 {
		flags = append(flags, "refreshes "+strings.Join(p.DependentParams, ", "))
	}
	fmt.Fprintf(w, "  %s (%s) %s\n", p.Name, kind, strings.Join(flags, "; "))
	fmt.Fprintf(w, "      %s", p.DisplayName)
	if p.Help != "" {
		fmt.Fprintf(w, ": %s", p.Help)
	}
	fmt.Fprintln(w)
	if p.Min != nil || p.Max != nil {
		fmt.Fprintf(w, "      range %s to %s\n", fmtBound(p.Min), fmtBound(p.Max))
	}
	if len(p.Vocabulary) == 0 {
		if p.Type == catalog.ParamSinglePick || p.Type == catalog.ParamMultiPick {
			fmt.Fprintln(w, "      vocabulary not available here; values are not checked")
		}
		return
	}
	shown := p.Vocabulary
	if maxTerms > 0 && len(shown) > maxTerms {
		shown = shown[:maxTerms]
	}
	fmt.Fprintf(w, "      %d terms:\n", len(p.Vocabulary))
	for _, t := range shown {
		line := t.Term
		if t.Display != "" && t.Display != t.Term {
			line += "  (" + t.Display + ")"
		}
		if t.Parent != "" {
			line += "  under " + t.Parent
		}
		fmt.Fprintf(w, "        %s\n", line)
	}
	if rest := len(p.Vocabulary) - len(shown); rest > 0 {
		fmt.Fprintf(w, "        ... and %d more (use -terms 0 to list all)\n", rest)
	}
}

func fmtBound(f *float64) string {
	if f == nil {
		return "unbounded"
	}
	return fmt.Sprint(*f)
}

func catalogCount(ctx context.Context, cat catalog.Catalog, args []string, stdout io.Writer) error {
	fs, site := catalogFlags("count", stdout)
	weight := fs.Int("weight", 0, "weight given to the search's genes (wdkWeight)")
	records := fs.Int("records", 5, "records to print")
	tree := fs.String("tree", "", "a whole query tree as JSON instead of one search")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("catalog count: %w", err)
	}
	q, err := countQuery(fs.Args(), *tree, *weight)
	if err != nil {
		fmt.Fprintln(stdout, catalogUsage)
		return fmt.Errorf("catalog count: %w", err)
	}
	ans, err := cat.Answer(ctx, *site, q, catalog.Page{Limit: max(*records, 0)})
	if ve, ok := errors.AsType[*catalog.ValidationError](err); ok {
		fmt.Fprintf(stdout, "Invalid parameters for %s:\n", ve.Search)
		for _, g := range ve.General {
			fmt.Fprintf(stdout, "  %s\n", g)
		}
		for _, k := range slices.Sorted(maps.Keys(ve.ByKey)) {
			fmt.Fprintf(stdout, "  %s: %s\n", k, strings.Join(ve.ByKey[k], " "))
		}
		return errors.New("catalog count: invalid parameters")
	}
	if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
		fmt.Fprintf(stdout, "%s: count not available offline.\n  %s\n", ne.Search, ne.Reason)
		return errors.New("catalog count: not evaluable offline")
	}
	if err != nil {
		return fmt.Errorf("catalog count: %w", err)
	}
	fmt.Fprintf(stdout, "%s: %d genes\n", q.Search, ans.Count)
	p := ans.Provenance
	fmt.Fprintf(stdout, "source: %s", p.Source)
	if p.Year != 0 {
		fmt.Fprintf(stdout, ", %d", p.Year)
	}
	if p.Offline {
		fmt.Fprint(stdout, " (offline)")
	}
	if p.Approximate {
		fmt.Fprint(stdout, " (approximate)")
	}
	fmt.Fprintln(stdout)
	if p.Release != "" {
		fmt.Fprintf(stdout, "release: %s\n", p.Release)
	}
	if p.Note != "" {
		fmt.Fprintf(stdout, "note: %s\n", p.Note)
	}
	if len(ans.Records) > 0 {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "\ngene\ttype\tsequence\tweight\tproduct\n")
		for _, r := range ans.Records {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.GeneID, r.GeneType, r.Chromosome, r.Weight, r.Product)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("catalog count: %w", err)
		}
		if ans.Count > len(ans.Records) {
			fmt.Fprintf(stdout, "... %d more\n", ans.Count-len(ans.Records))
		}
	}
	return nil
}

// countQuery builds the query from "search name=value ..." or a JSON tree.
func countQuery(args []string, tree string, weight int) (*catalog.Query, error) {
	if tree != "" {
		if len(args) > 0 {
			return nil, errors.New("give either -tree or a search with parameters, not both")
		}
		var q catalog.Query
		if err := json.Unmarshal([]byte(tree), &q); err != nil {
			return nil, fmt.Errorf("read -tree: %w", err)
		}
		if q.Search == "" {
			return nil, errors.New(`-tree needs "searchName"`)
		}
		return &q, nil
	}
	if len(args) == 0 {
		return nil, errors.New("give a search name")
	}
	q := &catalog.Query{Search: args[0], Params: map[string]string{}, Weight: weight}
	for _, a := range args[1:] {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("parameter %q is not name=value", a)
		}
		q.Params[name] = value
	}
	return q, nil
}
