package cli

import (
	"io"
	"os"
)

// toStdout tells whether the output file path is the standard output stdout: "-", or a path
// that names the same file (/dev/stdout, /dev/fd/1, a pipe's /proc/self/fd/N).
func toStdout(path string, stdout io.Writer) bool {
	if path == "-" {
		return true
	}
	f, ok := stdout.(*os.File)
	if !ok || path == "" {
		return false
	}
	out, err := os.Stat(path)
	if err != nil {
		return false
	}
	so, err := f.Stat()
	return err == nil && os.SameFile(out, so)
}

// infoWriter is where a command's messages for its user go: stderr when its output file is
// the standard output, so that the file arrives there alone, and stdout otherwise.
func infoWriter(path string, stdout, stderr io.Writer) io.Writer {
	if toStdout(path, stdout) {
		return stderr
	}
	return stdout
}
