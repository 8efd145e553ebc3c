// Package humanize writes byte counts, durations, seed ranges and counts of things the way
// people read them.
package humanize

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bytes formats a byte count as "7.8 GB" (decimal units, like file managers).
func Bytes(b uint64) string {
	switch {
	case b >= 1e9:
		return strconv.FormatFloat(float64(b)/1e9, 'f', 1, 64) + " GB"
	case b >= 1e6:
		return strconv.FormatFloat(float64(b)/1e6, 'f', 1, 64) + " MB"
	case b >= 1e3:
		return strconv.FormatFloat(float64(b)/1e3, 'f', 0, 64) + " kB"
	}
	return strconv.FormatUint(b, 10) + " B"
}

// Duration prints short durations with tenths and long ones in minutes.
func Duration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
}

// SeedRange is the seeds first to first+count−1 as a range ("41–43"; one seed alone). Long seeds share their
// leading digits, which the end of the range leaves out but for its last two
// ("3806188289–91"): the whole of it was cut short in a narrow queue row ("3806188289–
// 3806188…"; issue 36 item 20).
func SeedRange(first uint64, count int) string {
	a := strconv.FormatUint(first, 10)
	if count <= 1 {
		return a
	}
	b := strconv.FormatUint(first+uint64(count-1), 10)
	if len(a) != len(b) || len(a) < 5 {
		return a + "–" + b
	}
	same := 0
	for same < len(a)-2 && a[same] == b[same] {
		same++
	}
	return a + "–" + b[same:]
}

// CountList counts two kinds of things in words, leaving out what there are none of:
// (6, 1) gives "6 images, 1 folder"; (0, 0) gives "".
func CountList(n1 int, one1, many1 string, n2 int, one2, many2 string) string {
	var parts []string
	for _, p := range []struct {
		n         int
		one, many string
	}{{n1, one1, many1}, {n2, one2, many2}} {
		switch {
		case p.n == 1:
			parts = append(parts, "1 "+p.one)
		case p.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.many))
		}
	}
	return strings.Join(parts, ", ")
}
