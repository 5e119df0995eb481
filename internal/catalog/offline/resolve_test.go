package offline

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func TestResolveGenes(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		name string
		ids  []string
		want *catalog.GeneResolution
	}{
		{name: "current ids in any case, once each, in list order",
			ids: []string{"pf3d7_1133400", "PF3D7_0100200", "PF3D7_1133400"},
			want: &catalog.GeneResolution{Genes: []string{"PF3D7_1133400", "PF3D7_0100200"},
				Mapped: []catalog.IDMapping{}, Unknown: []string{}}},
		{name: "a previous id is mapped to the current id and reported",
			ids: []string{"PFA0005w", "PF3D7_0100100"},
			want: &catalog.GeneResolution{Genes: []string{"PF3D7_0100100"},
				Mapped: []catalog.IDMapping{{From: "PFA0005w", To: "PF3D7_0100100"}}, Unknown: []string{}}},
		{name: "a retired id naming two genes maps to both",
			ids: []string{"pff0410w"},
			want: &catalog.GeneResolution{Genes: []string{"PF3D7_0608300", "PF3D7_0608310"},
				Mapped: []catalog.IDMapping{{From: "pff0410w", To: "PF3D7_0608300"}, {From: "pff0410w", To: "PF3D7_0608310"}}, Unknown: []string{}}},
		{name: "a transcript id is mapped to its gene",
			ids: []string{"PF3D7_1133400.1"},
			want: &catalog.GeneResolution{Genes: []string{"PF3D7_1133400"},
				Mapped: []catalog.IDMapping{{From: "PF3D7_1133400.1", To: "PF3D7_1133400"}}, Unknown: []string{}}},
		{name: "unknown ids and symbols are listed, not dropped",
			ids:  []string{"PF3D7_9999999", "AMA1", "pf3d7_9999999", " "},
			want: &catalog.GeneResolution{Genes: []string{}, Mapped: []catalog.IDMapping{}, Unknown: []string{"PF3D7_9999999", "AMA1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ResolveGenes(context.Background(), SiteID, tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveGenes() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := c.ResolveGenes(context.Background(), "toxodb", []string{"x"}); err == nil {
		t.Error("ResolveGenes on another site: no error")
	}
}
