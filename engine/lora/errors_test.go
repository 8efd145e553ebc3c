package lora

import (
	"errors"
	"path/filepath"
	"testing"
)

// Issue 35: an adapter file's problem is a *lora.Error, worded as before ("lora: ..."),
// and Reason gives it without the package's words and the path, from the error's fields
// (the app trimmed "lora: " and the path off the text).
func TestErrorReason(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		err          error
		text, reason string
	}{
		{func() error {
			_, err := ParseBytes("x.safetensors", []byte("\x02\x00\x00\x00\x00\x00\x00\x00[]"))
			return err
		}(),
			"lora: x.safetensors: header does not start with '{' (corrupt or not safetensors)",
			"header does not start with '{' (corrupt or not safetensors)"},
		{func() error { _, err := Open(dir); return err }(),
			"lora: open safetensors: open " + dir + ": is a directory",
			"open " + filepath.Base(dir) + ": is a directory"},
		{func() error {
			_, err := ParseBytes("y.safetensors", []byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
			return err
		}(),
			"lora: y.safetensors: no LoRA or LoKr tensors of FLUX.2-klein or its Qwen3 text encoder among 0 tensors",
			"no LoRA or LoKr tensors of FLUX.2-klein or its Qwen3 text encoder among 0 tensors"},
	} {
		var le *Error
		if !errors.As(c.err, &le) {
			t.Errorf("%v (%T): not a *lora.Error", c.err, c.err)
			continue
		}
		if c.err.Error() != c.text {
			t.Errorf("text %q, want %q", c.err, c.text)
		}
		if got := Reason(c.err); got != c.reason {
			t.Errorf("reason %q, want %q", got, c.reason)
		}
	}
}

// Issue 35: a FitError's Problem is its text without "lora: " (the app trimmed the text).
func TestFitErrorProblem(t *testing.T) {
	e := &FitError{Path: "/a/x.safetensors", Fits: "FLUX.2-klein 9B", Mismatched: []string{"m: adapter [2, 2], model [3, 3]"}}
	want := "/a/x.safetensors (made for FLUX.2-klein 9B) does not fit this model: 1 layers differ in shape: m: adapter [2, 2], model [3, 3]"
	if e.Problem() != want || e.Error() != "lora: "+want {
		t.Errorf("problem %q, error %q", e.Problem(), e.Error())
	}
}
