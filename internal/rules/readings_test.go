package rules

import "testing"

// TestGenomeMeant: an organelle is read as its genome when the words say
// so (a gene on or from it, its genome or DNA, its sequence's name, a
// list of places after "on"); otherwise it has two readings.
func TestGenomeMeant(t *testing.T) {
	tests := []struct {
		user, location string
		want           bool
	}{
		{"genes on the apicoplast", "apicoplast", true},
		{"apicoplast genome genes", "apicoplast", true},
		{"apicoplast-encoded genes", "apicoplast", true},
		{"tRNA genes on the API", "apicoplast", true},
		{"translation genes but not on chromosome 14 or the mitochondrion", "mitochondrion", true},
		{"rRNA genes from chromosomes 1, 2 and the apicoplast", "apicoplast", true},
		{"protein coding genes on the apicoplast and the mitochondrion", "mitochondrion", true},
		{"the apicoplast rRNA genes, plus GO:0006281 genes on chromosome 1", "apicoplast", true},
		{"mitochondrial tRNAs", "mitochondrion", true},
		{"apicoplast genes", "apicoplast", false},
		{"tRNA genes excluding the apicoplast", "apicoplast", false},
		{"translation genes located in the mitochondrion", "mitochondrion", false},
		{"exclude the mitochondrial ones", "mitochondrion", false},
		{"genes on the apicoplast, and apicoplast proteins", "apicoplast", false},
	}
	for _, tt := range tests {
		if got := genomeMeant(tt.user, tt.location); got != tt.want {
			t.Errorf("genomeMeant(%q, %s) = %v, want %v", tt.user, tt.location, got, tt.want)
		}
	}
}

// TestRenamed: an option's message names the organelle so that it has
// one reading.
func TestRenamed(t *testing.T) {
	tests := []struct{ user, with, want string }{
		{"tRNA genes excluding the apicoplast", "the apicoplast genome", "tRNA genes excluding the apicoplast genome"},
		{"apicoplast genes", "text search for apicoplast", "text search for apicoplast"},
		{"rRNA genes, exclude the mitochondrial ones", "text search for mitochondrial", "rRNA genes, exclude text search for mitochondrial"},
	}
	for _, tt := range tests {
		stem := "apicoplast"
		if tt.with == "text search for mitochondrial" {
			stem = "mitochondri"
		}
		if got := renamed(tt.user, stem, tt.with); got != tt.want {
			t.Errorf("renamed(%q) = %q, want %q", tt.user, got, tt.want)
		}
	}
}
