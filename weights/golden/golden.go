// Package golden locates the shared golden data (../shared/golden beside the repository, or
// $KLEINBILD_GOLDEN) and compares float tensors the way notes/method.md asks: relative L2
// error and max abs error, NaN never passing. It is used by tests only.
package golden

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/internal/safefile"
	"kleinbild/weights"
)

// Dir returns the golden data folder. It looks at $KLEINBILD_GOLDEN, then walks up from the
// working directory to the module root and takes ../shared/golden. Tests that need the
// data fail (not skip) when it is missing: CI always has it.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("KLEINBILD_GOLDEN"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			g := filepath.Join(dir, "..", "shared", "golden")
			if _, err := os.Stat(g); err != nil {
				t.Fatalf("golden data not found at %s (set KLEINBILD_GOLDEN): %v", g, err)
			}
			return g
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root not found; set KLEINBILD_GOLDEN")
		}
		dir = parent
	}
}

// Path joins rel to the golden folder.
func Path(t testing.TB, rel ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Dir(t)}, rel...)...)
}

// TinyModel is the path of the complete tiny distilled model folder.
func TinyModel(t testing.TB) string { return Path(t, "model", "tiny-flux2-klein") }

// TinyBaseModel assembles the tiny base (undistilled) model in a temporary folder, as the
// golden README says: the base model_index.json plus links to the distilled folder's parts.
func TinyBaseModel(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	tiny, err := filepath.Abs(TinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"scheduler", "text_encoder", "tokenizer", "transformer", "vae"} {
		if err := os.Symlink(filepath.Join(tiny, part), filepath.Join(dir, part)); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := safefile.ReadRegular(Path(t, "model", "tiny-flux2-klein-base", "model_index.json"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model_index.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Open maps a golden safetensors file (path relative to the golden folder) and closes it
// when the test ends.
func Open(t testing.TB, rel string) *weights.File {
	t.Helper()
	f, err := weights.OpenFile(Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// F32 returns a float tensor of f as float32 with its shape.
func F32(t testing.TB, f *weights.File, name string) ([]float32, []int) {
	t.Helper()
	tn, err := f.Tensor(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tn.Float32()
	if err != nil {
		t.Fatal(err)
	}
	return v, tn.Shape
}

// I64 returns an integer tensor of f with its shape.
func I64(t testing.TB, f *weights.File, name string) ([]int64, []int) {
	t.Helper()
	tn, err := f.Tensor(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tn.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return v, tn.Shape
}

// Errors returns the relative L2 error ‖got−want‖/‖want‖ and the max abs error. A NaN or
// Inf in got, or a length mismatch, gives +Inf.
func Errors(got, want []float32) (relL2, maxAbs float64) {
	if len(got) != len(want) {
		return math.Inf(1), math.Inf(1)
	}
	var num, den float64
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return math.Inf(1), math.Inf(1)
		}
		d := g - w
		num += d * d
		den += w * w
		maxAbs = math.Max(maxAbs, math.Abs(d))
	}
	if den == 0 {
		return math.Sqrt(num), maxAbs
	}
	return math.Sqrt(num / den), maxAbs
}

// Compare fails the test when the relative L2 error of got against want exceeds relTol, and
// always logs both error measures.
func Compare(t testing.TB, label string, got, want []float32, relTol float64) {
	t.Helper()
	rel, mx := Errors(got, want)
	if len(got) != len(want) {
		t.Errorf("%s: length %d, want %d", label, len(got), len(want))
		return
	}
	t.Logf("%s: rel-L2 %.3g (tol %.1g), max abs %.3g, n=%d", label, rel, relTol, mx, len(got))
	if !(rel <= relTol) {
		t.Errorf("%s: rel-L2 %.3g exceeds %.1g (max abs %.3g)", label, rel, relTol, mx)
	}
}

// CheckSpecs fails the test unless specs lists exactly the tensors (names and shapes) of
// the checkpoint in dir: the model code and the reference's files agree on the layout.
func CheckSpecs(t testing.TB, dir string, specs []weights.TensorSpec) {
	t.Helper()
	ck, err := weights.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	got := map[string]string{}
	for _, s := range specs {
		got[s.Name] = fmt.Sprint(s.Shape)
	}
	names := ck.Names()
	for _, name := range names {
		tn, err := ck.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprint(tn.Shape)
		switch g, ok := got[name]; {
		case !ok:
			t.Errorf("in checkpoint, not listed: %s %s", name, want)
		case g != want:
			t.Errorf("%s: listed with shape %s, checkpoint has %s", name, g, want)
		}
		delete(got, name)
	}
	for name, shape := range got {
		t.Errorf("listed, not in checkpoint: %s %s", name, shape)
	}
	if len(specs) != len(names) {
		t.Errorf("%d tensors listed, the checkpoint holds %d", len(specs), len(names))
	}
}
