package event

import "context"

type turnKey struct{}

// WithTurn returns ctx carrying the id of the turn doing the work, so that
// events produced deep inside it (the strategy service's graph snapshots)
// name their turn without the id being threaded through every call.
func WithTurn(ctx context.Context, turnID string) context.Context {
	return context.WithValue(ctx, turnKey{}, turnID)
}

// TurnFrom returns the turn id in ctx, or "" outside a turn (an undo from
// the HTTP API).
func TurnFrom(ctx context.Context) string {
	id, _ := ctx.Value(turnKey{}).(string)
	return id
}
