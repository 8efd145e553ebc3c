package app

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"

	"kleinbild/app/widgets"
	"kleinbild/estimate"
	"kleinbild/internal/atomicfile"
)

// update rewrites the rendered-output masters: go test ./app -run TestRenderMasters -update
var update = flag.Bool("update", false, "rewrite the rendered-output masters in testdata/ui")

// mastersDir holds the masters of the rendered UI (the project's top-level testdata/).
const mastersDir = "../testdata/ui"

// renderSize is the window size the masters are rendered at.
var renderSize = fyne.NewSize(1280, 860)

// TestRenderMasters renders a few UI states headlessly and compares them with their masters
// in testdata/ui. After a deliberate change to the UI, -update rewrites the masters; look
// at them before committing.
func TestRenderMasters(t *testing.T) {
	masters, err := filepath.Abs(mastersDir)
	if err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, model string }{
		{"first-start", ""},     // no model yet: the setup guide
		{"model-chosen", model}, // the main window, ready to generate
	} {
		t.Run(c.name, func(t *testing.T) {
			h := renderHarness(t, c.model)
			checkMaster(t, filepath.Join(masters, c.name+".png"), h.win.Canvas().Capture())
		})
	}
}

// renderHarness is a harness whose window looks as in the app (its theme, laid out again
// once wrapped text knows its width) and shows nothing that changes between runs or
// machines: a fixed size, the data folder "data" relative to a fresh working folder (the
// window names it), and a fixed machine for the fit line.
func renderHarness(t *testing.T, model string) *harness {
	t.Chdir(t.TempDir())
	h := newHarness(t, "data", model, newFakeGen().open)
	h.ui.App.Settings().SetTheme(widgets.Theme())
	h.ui.fit.Machine = func(c estimate.Calibration) estimate.Machine {
		return estimate.Machine{AvailableBytes: 16e9, TotalBytes: 32e9, Rates: c}
	}
	h.ui.fit.Update()
	h.settle()
	// The test driver lays the window out once; wrapped text learns its height in that
	// pass, so a second one (as a real window gets) places what follows it.
	h.win.Resize(renderSize.SubtractWidthHeight(1, 1))
	h.settle()
	h.win.Resize(renderSize)
	h.settle()
	return h
}

// checkMaster compares img with the master at path (or writes it there with -update). On a
// mismatch the rendering is kept in the system's temporary folder for a look.
func checkMaster(t *testing.T, path string, img image.Image) {
	t.Helper()
	name := filepath.Base(path)
	if *update {
		if err := writePNGFile(path, img); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	want, err := readPNGFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no master %s: go test ./app -run TestRenderMasters -update writes it", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := imageDiff(want, img, 2); diff != "" {
		got := filepath.Join(os.TempDir(), "kleinbild-render", name)
		if err := writePNGFile(got, img); err != nil {
			t.Logf("rendering not kept: %v", err)
		}
		t.Errorf("%s differs from its master %s: %s (rendering in %s; -update rewrites the master)", name, path, diff, got)
	}
}

// imageDiff describes how b differs from a: "" when they have the same size and no colour
// channel of any pixel differs by more than tol.
func imageDiff(a, b image.Image, tol int) string {
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Dx() != bb.Dx() || ab.Dy() != bb.Dy() {
		return fmt.Sprintf("size %dx%d, master %dx%d", bb.Dx(), bb.Dy(), ab.Dx(), ab.Dy())
	}
	n := 0
	var first image.Point
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, a1 := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			if chanDiff(r1, r2) > tol || chanDiff(g1, g2) > tol || chanDiff(b1, b2) > tol || chanDiff(a1, a2) > tol {
				if n == 0 {
					first = image.Pt(x, y)
				}
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d pixels differ, the first at %v", n, first)
}

// chanDiff is the difference of two 16-bit colour channels in 8-bit steps.
func chanDiff(a, b uint32) int {
	d := int(a>>8) - int(b>>8)
	if d < 0 {
		return -d
	}
	return d
}

func readPNGFile(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("master %s: %w", path, err)
	}
	return img, nil
}

func writePNGFile(path string, img image.Image) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteAtomic(path, func(w *bufio.Writer) error { return png.Encode(w, img) })
}
