package english

import "testing"

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		Parse("Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14")
	}
}
