package lora

import (
	"errors"
	"io/fs"
	"path/filepath"

	"kleinbild/weights"
)

// Error is an adapter file that cannot be used (Open, Inspect, Parse): Path names the
// file, Err says why. Error words it as "lora: PATH: why", or "lora: why" where Err is the
// safetensors reader's error, which names the file itself.
type Error struct {
	Path  string
	Err   error
	named bool // Err names the file
}

func (e *Error) Error() string {
	if e.named {
		return "lora: " + e.Err.Error()
	}
	return "lora: " + e.Path + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Reason is what is wrong with the adapter file of err (an *Error), without the package's
// words or the file's path, for front ends that name the file their way: a file the
// reader cannot open names it by its base name ("open x.safetensors: is a directory").
// Other errors give their own text.
func Reason(err error) string {
	var le *Error
	if !errors.As(err, &le) {
		return err.Error()
	}
	var fe *weights.FileError
	if errors.As(le.Err, &fe) {
		return fe.Err.Error()
	}
	var pe *fs.PathError
	if errors.As(le.Err, &pe) {
		return pe.Op + " " + filepath.Base(pe.Path) + ": " + pe.Err.Error()
	}
	return le.Err.Error()
}
