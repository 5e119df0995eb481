package eventlog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAnnouncement(t *testing.T) {
	t.Parallel()
	got, err := parseAnnouncement("proc-1|c1|1|2|c2|5|5")
	if err != nil {
		t.Fatal(err)
	}
	want := announcement{origin: "proc-1", ranges: []announcedRange{{"c1", 1, 2}, {"c2", 5, 5}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(announcement{}, announcedRange{})); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "proc-1", "proc-1|c1|1", "proc-1|c1|1|2|c2|3", "proc-1|c1|0|1", "proc-1|c1|3|2", "proc-1||1|1", "proc-1|c1|x|1"} {
		if _, err := parseAnnouncement(bad); err == nil {
			t.Errorf("parseAnnouncement(%q) accepted", bad)
		}
	}
}
