package genelist

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{name: "one per line", text: "PF3D7_0100100\nPF3D7_1133400\n", want: []string{"PF3D7_0100100", "PF3D7_1133400"}},
		{name: "any separator and case", text: "pf3d7_0100100, PF3D7_1133400;PFA0005w\tPF11_0344 | PF3D7_0200100\r\nPF3D7_0300100\r",
			want: []string{"pf3d7_0100100", "PF3D7_1133400", "PFA0005w", "PF11_0344", "PF3D7_0200100", "PF3D7_0300100"}},
		{name: "header row ignored", text: "Gene ID\nPF3D7_0100100\nPF3D7_1133400", want: []string{"PF3D7_0100100", "PF3D7_1133400"}},
		{name: "blank lines before a header", text: "\n\n  gene_ids  \nPF3D7_0100100", want: []string{"PF3D7_0100100"}},
		{name: "a first line with a digit is data", text: "PF3D7_0100100\nPF3D7_1133400", want: []string{"PF3D7_0100100", "PF3D7_1133400"}},
		{name: "a word without a digit on a later line is kept (reported unknown)", text: "PF3D7_0100100\nAMA1x\nkinase",
			want: []string{"PF3D7_0100100", "AMA1x", "kinase"}},
		{name: "TSV download: the id column", text: "Product Description\tGene ID\tChromosome\nDNA polymerase, delta\tPF3D7_1017000\tPf3D7_10_v3\nkinase\tPF3D7_0100100\tPf3D7_01_v3\n",
			want: []string{"PF3D7_1017000", "PF3D7_0100100"}},
		{name: "CSV with quotes: the first column", text: "\"gene\",\"product\"\n\"PF3D7_0100100\",\"erythrocyte membrane protein 1, PfEMP1\"\nPF3D7_1133400,\"AMA1\"",
			want: []string{"PF3D7_0100100", "PF3D7_1133400"}},
		{name: "short rows under a table header keep their ids", text: "Gene ID,Product\nPF3D7_0100100 PF3D7_1133400",
			want: []string{"PF3D7_0100100", "PF3D7_1133400"}},
		{name: "byte order mark", text: "\uFEFFPF3D7_0100100", want: []string{"PF3D7_0100100"}},
		{name: "quoted ids", text: `"PF3D7_0100100" 'PF3D7_1133400'`, want: []string{"PF3D7_0100100", "PF3D7_1133400"}},
		{name: "empty", text: " \n\t\n", want: nil},
		{name: "header only", text: "Gene ID\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Parse(tt.text)); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add("Gene ID\tProduct\nPF3D7_0100100\tx\n")
	f.Add("a,b\n\"c")
	f.Fuzz(func(t *testing.T, text string) {
		for _, id := range Parse(text) {
			if id == "" {
				t.Fatalf("Parse(%q) gave an empty id", text)
			}
		}
	})
}
