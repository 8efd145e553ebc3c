package weights

import (
	"errors"
	"testing"
)

// Issue 35: a file that is no safetensors is a *FileError naming it, worded as before
// ("path: what is wrong"), so that a report naming the file takes Err instead of trimming
// the path off the text.
func TestFileError(t *testing.T) {
	_, err := ParseBytes("x.safetensors", []byte("\x02\x00\x00\x00\x00\x00\x00\x00[]"))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != "x.safetensors" {
		t.Fatalf("%v (%T): not a *FileError", err, err)
	}
	if want := "x.safetensors: header does not start with '{' (corrupt or not safetensors)"; err.Error() != want {
		t.Errorf("%q, want %q", err, want)
	}
}
