package atomicfile_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"kleinbild/internal/atomicfile"
)

// TestWriteSweepsStaleTemps: a write removes the temporary files of the same output that a
// killed writer left behind (issue 37 item 18: `kill`, `timeout` and `docker stop` left
// ".out.png.tmp-kleinbild-NNN" beside the output, and later runs never removed it). A
// temporary of a process that has ended goes after a few seconds, any other after an hour;
// a write in progress, other outputs' temporaries and the user's files stay.
func TestWriteSweepsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.png")
	old := time.Now().Add(-2 * time.Hour)
	recent := time.Now().Add(-time.Minute)
	deadPID := strconv.Itoa(1 << 30) // above any pid_max: no such process
	self := strconv.Itoa(os.Getpid())
	files := []struct {
		name  string
		mtime time.Time
		swept bool
	}{
		{".out.png" + atomicfile.TempMarker + deadPID + "-123", recent, true},    // its writer was killed
		{".out.png" + atomicfile.TempMarker + "4087113", old, true},              // an older version's, old
		{".out.png" + atomicfile.TempMarker + "4087114", recent, false},          // an older version's, may be writing
		{".out.png" + atomicfile.TempMarker + self + "-77", recent, false},       // this process's, writing
		{".out.png" + atomicfile.TempMarker + deadPID + "-5", time.Now(), false}, // just written: another namespace's?
		{".other.png" + atomicfile.TempMarker + deadPID + "-9", old, false},      // another output's
		{".out.png.tmp-1", old, false},                                           // the user's own
		{"out.png" + atomicfile.TempMarker + deadPID + "-1", old, false},         // not hidden: not ours
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, f.mtime, f.mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, write := range []func(string, func(*bufio.Writer) error) error{atomicfile.WriteOutput, atomicfile.WriteAtomic} {
		if err := write(out, func(w *bufio.Writer) error { _, err := w.WriteString("png"); return err }); err != nil {
			t.Fatal(err)
		}
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range left {
		names = append(names, de.Name())
	}
	for _, f := range files {
		if got := slices.Contains(names, f.name); got == f.swept {
			t.Errorf("%s (modified %v ago): kept %v, want %v", f.name, time.Since(f.mtime).Round(time.Second), got, !f.swept)
		}
	}
	if got, _ := os.ReadFile(out); string(got) != "png" {
		t.Errorf("output holds %q", got)
	}
}
