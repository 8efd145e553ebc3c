package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A temporary file is named ".NAME" + TempMarker + "PID-RANDOM": the writing process's id
// lets a later write tell a leftover of a process that has ended (killed by SIGKILL or a
// power cut in the middle of a write) from a write in progress.
const (
	// deadWriterAge is how long a temporary file of an ended process must have been left
	// unchanged before it is removed (its process may be one of another PID namespace, a
	// container writing to the same folder).
	deadWriterAge = 10 * time.Second
	// staleAge is the age after which any temporary file of ours is a leftover: a write in
	// progress changes its file every megabyte (the name of an older version has no process
	// id, and a process id may have been reused).
	staleAge = time.Hour
)

// tempPattern is the os.CreateTemp pattern of a temporary file for the file named base.
func tempPattern(base string) string {
	return "." + base + TempMarker + strconv.Itoa(os.Getpid()) + "-*"
}

// sweepStale removes the leftover temporary files of writes of dir/base that ended without
// cleaning up (see staleTemp). Other files, temporaries of other names included, are left
// alone; errors are ignored (the sweep is best effort and never blocks a write).
func sweepStale(dir, base string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + TempMarker
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, name)
		st, err := os.Lstat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if staleTemp(strings.TrimPrefix(name, prefix), st, now) {
			os.Remove(path)
		}
	}
}

// staleTemp reports whether a temporary file with the name suffix (after the marker) and
// info st is a leftover: unchanged for staleAge, or for deadWriterAge when the process that
// wrote it has ended.
func staleTemp(suffix string, st fs.FileInfo, now time.Time) bool {
	age := now.Sub(st.ModTime())
	if age > staleAge {
		return true
	}
	pidText, _, ok := strings.Cut(suffix, "-")
	if !ok {
		return false // an older version's name: only its age tells
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return age > deadWriterAge && !processAlive(pid)
}
