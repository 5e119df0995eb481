package graphtool_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"strategist/internal/strategies"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// awayService is the strategy service with the database gone under its
// changes, past the store's retries.
type awayService struct{ graphtool.Service }

func (awayService) Apply(context.Context, string, string, strategy.Mutation) (strategies.Result, error) {
	return strategies.Result{}, fmt.Errorf("strategy: apply to 42: store: update strategy: %w", io.ErrUnexpectedEOF)
}

// TestDatabaseUnavailableIsASentence: a graph tool whose change the
// database could not take says so in a sentence, with a code the model and
// the researcher can act on (try again), not the driver's text.
func TestDatabaseUnavailableIsASentence(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.binding()
	b.Service = awayService{f.svc}
	tools, err := graphtool.ExecutorTools(b)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tool.NewToolset(tools...)
	if err != nil {
		t.Fatal(err)
	}
	te := toolbox{t: t, ts: ts}.refused("create_step", replication, graphtool.CodeUnavailable)
	if strings.Contains(te.Message, "EOF") || strings.Contains(te.Message, "store:") {
		t.Errorf("message %q carries the driver's text", te.Message)
	}
}
