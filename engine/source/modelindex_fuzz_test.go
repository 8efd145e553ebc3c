package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestModelIndex: model_index.json must be an object naming the FLUX.2-klein pipeline and,
// if it names one, the flow-matching Euler scheduler.
func TestModelIndex(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`null`, "want an object"},
		{`[]`, "malformed JSON"},
		{`{"_class_name": "FluxPipeline"}`, "Flux2KleinPipeline"},
		{`{"scheduler": ["diffusers", "EulerDiscreteScheduler"]}`, `"EulerDiscreteScheduler"`},
		{`{"scheduler": "x"}`, `field "scheduler"`},
	} {
		if _, err := parseModelIndex([]byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.text, err, tc.want)
		}
	}
	if d, err := parseModelIndex([]byte(`{"is_distilled": true, "scheduler": null}`)); err != nil || !d {
		t.Errorf("distilled index: %v, %v", d, err)
	}
}

// FuzzModelIndex: parseModelIndex never panics on any model_index.json text.
func FuzzModelIndex(f *testing.F) {
	for _, p := range []string{
		filepath.Join(golden.TinyModel(f), "model_index.json"),
		golden.Path(f, "model", "tiny-flux2-klein-base", "model_index.json"),
	} {
		if raw, err := os.ReadFile(p); err == nil {
			f.Add(raw)
		}
	}
	for _, s := range []string{`{}`, `null`, `[]`, `{"scheduler": [null, null]}`, `{"_class_name": 3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = parseModelIndex(data)
	})
}
