package server

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
)

// downloadColumns are the columns of a step's genes as downloaded.
var downloadColumns = []string{"gene_id", "product", "gene_type", "gene_name", "organism", "chromosome", "previous_ids"}

// tsvCell keeps a value on its line and in its column.
var tsvCell = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

func downloadRow(r catalog.Record) []string {
	return []string{r.GeneID, r.Product, r.GeneType, r.GeneName, r.Organism, r.Chromosome, strings.Join(r.PreviousIDs, ", ")}
}

// downloadStepResults writes all of a step's genes as TSV, CSV or JSON, or
// only their ids, one a line (format ids: what the results panel's Copy
// gene ids puts on the clipboard), through writeStepGenes.
func (s *Server) downloadStepResults(c echo.Context, format string) error {
	if _, err := downloadType(format); err != nil {
		return err
	}
	conv, snap, err := s.conversationAndStrategy(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	stepID := strategy.StepID(c.Param("stepId"))
	return s.writeStepGenes(c, format, conv.ID, stepID, func(page catalog.Page) (*catalog.Answer, error) {
		ans, err := s.cfg.Strategies.StepResults(ctx, userID(c), snap.StrategyID, stepID, page)
		if err != nil {
			return nil, strategyError(err)
		}
		return ans, nil
	})
}

// downloadType is a download format's content type.
func downloadType(format string) (string, error) {
	switch format {
	case "tsv":
		return "text/tab-separated-values; charset=utf-8", nil
	case "csv":
		return "text/csv; charset=utf-8", nil
	case "json":
		return echo.MIMEApplicationJSON, nil
	case "ids":
		return "text/plain; charset=utf-8", nil
	}
	return "", badRequest(`format must be "tsv", "csv", "json" or "ids"`)
}

// writeStepGenes writes all of a step's genes in format, read by results
// a page of the catalog at a time (never all rows in memory), with the
// answer's provenance: a "# " line above the header for TSV and CSV, a
// field for JSON. Errors before the first page are ordinary JSON errors; a
// page that fails later ends the file with an error line (TSV, CSV) or
// leaves the JSON unterminated, and is logged. The file is named after the
// conversation (its id's first characters) and the step.
func (s *Server) writeStepGenes(c echo.Context, format, conversationID string, stepID strategy.StepID, results func(catalog.Page) (*catalog.Answer, error)) error {
	contentType, err := downloadType(format)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	page := catalog.Page{Limit: strategies.MaxPageSize}
	ans, err := results(page)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, contentType)
	ext := format
	if format == "ids" {
		ext = "txt"
	}
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="strategist-%s-%s.%s"`, conversationID[:min(8, len(conversationID))], stepID, ext))
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	w := newGeneWriter(c.Response(), format, stepID, ans)
	for {
		for _, r := range ans.Records {
			w.row(r)
		}
		c.Response().Flush()
		page.Offset += len(ans.Records)
		if len(ans.Records) < page.Limit || page.Offset >= ans.Count {
			break
		}
		if ans, err = results(page); err != nil {
			s.log.WarnContext(ctx, "downloading a step's genes", slog.String("step", string(stepID)), slog.Any("error", err))
			w.fail(err)
			return nil
		}
	}
	w.end()
	return nil
}

// geneWriter writes one download format.
type geneWriter struct {
	format string
	w      io.Writer
	csv    *csv.Writer
	rows   int
}

func newGeneWriter(w io.Writer, format string, stepID strategy.StepID, first *catalog.Answer) *geneWriter {
	g := &geneWriter{format: format, w: w}
	p := first.Provenance
	switch format {
	case "json":
		// The object's fields before its records, left open for them.
		head, _ := json.Marshal(map[string]any{"stepId": stepID, "count": first.Count, "provenance": p, "columns": downloadColumns})
		fmt.Fprintf(w, "%s,\"records\":[", head[:len(head)-1])
	case "ids":
		// Nothing but the ids: the list pastes as it is.
	default:
		fmt.Fprintf(w, "# %d genes of step %s · %s\n", first.Count, stepID, provenanceLine(p))
		if format == "csv" {
			g.csv = csv.NewWriter(w)
			_ = g.csv.Write(downloadColumns)
			g.csv.Flush()
		} else {
			fmt.Fprintln(w, strings.Join(downloadColumns, "\t"))
		}
	}
	return g
}

func (g *geneWriter) row(r catalog.Record) {
	switch g.format {
	case "json":
		if g.rows > 0 {
			_, _ = io.WriteString(g.w, ",")
		}
		b, _ := json.Marshal(r)
		_, _ = g.w.Write(b)
	case "csv":
		_ = g.csv.Write(downloadRow(r))
		g.csv.Flush()
	case "ids":
		_, _ = io.WriteString(g.w, tsvCell.Replace(r.GeneID)+"\n")
	default:
		cells := downloadRow(r)
		for i, v := range cells {
			cells[i] = tsvCell.Replace(v)
		}
		_, _ = io.WriteString(g.w, strings.Join(cells, "\t")+"\n")
	}
	g.rows++
}

func (g *geneWriter) end() {
	if g.format == "json" {
		_, _ = io.WriteString(g.w, "]}\n")
	}
}

func (g *geneWriter) fail(err error) {
	if g.format != "json" {
		fmt.Fprintf(g.w, "# incomplete after %d genes: %s\n", g.rows, err)
	}
}

// provenanceLine says where an answer's genes come from.
func provenanceLine(p catalog.Provenance) string {
	parts := []string{p.Source}
	if p.Release != "" {
		parts = append(parts, "release "+p.Release)
	}
	if p.Year != 0 {
		parts = append(parts, fmt.Sprint(p.Year))
	}
	if p.Approximate {
		parts = append(parts, "approximate")
	}
	if p.Note != "" {
		parts = append(parts, p.Note)
	}
	return strings.Join(parts, ", ")
}
