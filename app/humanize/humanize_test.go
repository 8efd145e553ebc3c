package humanize

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{1500 * time.Millisecond: "1.5 s", 42 * time.Second: "42 s", 125 * time.Second: "2 min 05 s", 2*time.Hour + 3*time.Minute: "2 h 03 min"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for b, want := range map[uint64]string{0: "0 B", 999: "999 B", 1500: "2 kB", 7_800_000_000: "7.8 GB", 12_345_678: "12.3 MB"} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", b, got, want)
		}
	}
}

// Issue 36 item 20: a queue row cut "seeds 3806188289–3806188…"; long seeds of a range
// leave their shared digits out of its end.
func TestSeedRange(t *testing.T) {
	for _, c := range []struct {
		first uint64
		count int
		want  string
	}{
		{41, 3, "41–43"},
		{3806188289, 4, "3806188289–92"},
		{3806188289, 12, "3806188289–300"},
		{99998, 3, "99998–100000"},
		{12345, 1, "12345"},
		{18446744073709551615, 2, "18446744073709551615–0"},
	} {
		if got := SeedRange(c.first, c.count); got != c.want {
			t.Errorf("SeedRange(%d, %d) = %q, want %q", c.first, c.count, got, c.want)
		}
	}
}

// CountList counts in words: "6 images", "1 folder", zero parts left out.
func TestCountList(t *testing.T) {
	for _, c := range []struct {
		files, dirs int
		want        string
	}{{6, 0, "6 images"}, {1, 1, "1 image, 1 folder"}, {0, 2, "2 folders"}, {0, 0, ""}, {2, 3, "2 images, 3 folders"}} {
		if got := CountList(c.files, "image", "images", c.dirs, "folder", "folders"); got != c.want {
			t.Errorf("CountList(%d, %d) = %q, want %q", c.files, c.dirs, got, c.want)
		}
	}
}
