package account

import "context"

type userKey struct{}

// WithUser returns ctx carrying the signed-in user's id. It is the only
// request identity Strategist passes through contexts; turns that outlive
// their request carry it too.
func WithUser(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, userKey{}, userID)
}

// UserID returns the user id in ctx, or "" when there is none.
func UserID(ctx context.Context) string {
	id, _ := ctx.Value(userKey{}).(string)
	return id
}
