// Package english reads a researcher's request for genes into a tree of
// clauses joined by the strategy operators (INTERSECT, UNION, MINUS). It
// knows English and the shapes of identifiers (GO ids, gene ids,
// chromosome names), not the catalog: what each clause maps to is decided
// afterwards from the catalog's own answers, by the rules engine.
//
// The grammar is written out on Parse. The package uses the standard
// library only, so it can be read, tested and fuzzed on its own.
package english
