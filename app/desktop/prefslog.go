package desktop

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// prefsEOFFilter drops Fyne's report of a preferences file read while another instance was
// rewriting it, and passes every other log line on to out (issue 37 item 15: "Fyne error:
// Preferences load error: Cause: EOF" at quit). Fyne writes the file in place (truncate,
// then write) and every instance watches it and reloads it on a change, so one that reads
// between the truncation and the write finds it empty. Such a read changes nothing (the
// preferences in memory are kept and saved again), so the three lines only alarm. An empty
// file left behind is repairPrefs's case.
//
// Fyne logs the report as three log lines: "Fyne error:  Preferences load error:",
// "  Cause: EOF" and "  At: file:line". The filter holds the first until the next shows
// whether the cause is an end of file.
type prefsEOFFilter struct {
	out io.Writer

	mu   sync.Mutex
	held []byte // the report's first line, until its cause is known
	drop bool   // the next line is the dropped report's "At:" line
}

// Write takes one or more whole lines (the log package writes a line at a time).
func (f *prefsEOFFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) > 0 {
			if err := f.line(line); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// line handles one line (with its newline).
func (f *prefsEOFFilter) line(line []byte) error {
	text := string(line)
	switch {
	case f.drop:
		f.drop = false
		if strings.Contains(text, "  At: ") {
			return nil
		}
	case f.held != nil:
		held := f.held
		f.held = nil
		if cause, ok := strings.CutPrefix(strings.TrimSpace(afterTimestamp(text)), "Cause: "); ok && strings.HasSuffix(cause, "EOF") {
			f.drop = true
			return nil
		}
		if _, err := f.out.Write(held); err != nil {
			return err
		}
	}
	if strings.Contains(text, "Fyne error:  Preferences load error:") {
		f.held = append([]byte(nil), line...)
		return nil
	}
	_, err := f.out.Write(line)
	return err
}

// afterTimestamp is a log line without the log package's date and time, if any.
func afterTimestamp(line string) string {
	if i := strings.Index(line, "  Cause: "); i >= 0 {
		return line[i:]
	}
	return line
}
