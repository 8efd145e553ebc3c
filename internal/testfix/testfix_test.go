package testfix

import (
	"bytes"
	"go/parser"
	"go/token"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritePNGDecodesToPattern(t *testing.T) {
	p := WritePNG(t, t.TempDir(), "a.png", 5, 3, nil)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := img.(*image.NRGBA)
	if !ok || !bytes.Equal(got.Pix, Pattern(5, 3).Pix) {
		t.Errorf("decoded %T, not the 5×3 pattern", img)
	}
	var saved string
	WritePNG(t, t.TempDir(), "b.png", 2, 2, func(path string, _ image.Image) error { saved = path; return nil })
	if filepath.Base(saved) != "b.png" {
		t.Errorf("save got %q", saved)
	}
}

func TestSpecialFilesAreWhatTheySay(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		path string
		mode fs.FileMode
	}{{FIFO(t, dir, "pipe"), fs.ModeNamedPipe}, {DevZero(t, dir, "zero"), fs.ModeCharDevice}} {
		fi, err := os.Stat(tc.path)
		if err != nil || fi.Mode()&tc.mode == 0 {
			t.Errorf("%s: %v, %v (want %v)", tc.path, fi.Mode(), err, tc.mode)
		}
	}
}

// TestOnlyTestsImportIt fails if a Go file other than a test imports this package or one
// below it (metapng), outside this folder.
func TestOnlyTestsImportIt(t *testing.T) {
	root := filepath.Join("..", "..")
	self := filepath.Join(root, "internal", "testfix")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path == self || path != root && (n == "testdata" || n == "shared" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "kleinbild/internal/testfix" || strings.HasPrefix(p, "kleinbild/internal/testfix/") {
				t.Errorf("%s imports %s outside a test", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
