package strategies

import (
	"context"

	"strategist/internal/strategy"
)

// ImportWDK makes a strategy in WDK's terms the conversation's strategy:
// the conversation's strategy (created empty, of the import's record type,
// when it has none) gets the imported steps as its next version, counted,
// reported like any change and undone like one.
func (s *Service) ImportWDK(ctx context.Context, userID, conversationID string, w *strategy.WDKStrategy) (Result, error) {
	if w == nil || w.RecordType == "" {
		return Result{}, &strategy.StepError{Kind: strategy.ErrInvalidImport, Op: "import strategy", Detail: "recordClassName is required"}
	}
	snap, err := s.ForConversation(ctx, userID, conversationID, w.RecordType, w.Name)
	if err != nil {
		return Result{}, err
	}
	return s.Apply(ctx, userID, snap.StrategyID, strategy.ImportWDK{Strategy: w})
}
