// Package strategies keeps researchers' strategies: the Service loads the
// graphs of internal/strategy from the store, applies mutations under the
// strategy's row lock, stores each change as a new version with its change
// record (and, with an event log, its graph_snapshot in the same
// transaction), undoes and redoes by restoring versions, finds the previous
// result, and answers a step's results, count and GO enrichment through
// the catalog.
//
// The graph model stays free of the database; this package is the layer
// above it that links the store.
package strategies
