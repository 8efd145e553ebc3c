package metapng

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/testfix"
)

// TestWriteKeepsMetadata: the file decodes to the pattern and carries meta; without meta it
// carries none.
func TestWriteKeepsMetadata(t *testing.T) {
	dir := t.TempDir()
	want := imageio.Metadata{Settings: schema.Settings{Prompt: "a red cube", Seed: 7}}
	for _, tc := range []struct {
		name string
		meta *imageio.Metadata
	}{{"meta.png", &want}, {"plain.png", nil}} {
		p := Write(t, dir, tc.name, 5, 3, tc.meta)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got, ok := img.(*image.NRGBA); !ok || !bytes.Equal(got.Pix, testfix.Pattern(5, 3).Pix) {
			t.Errorf("%s: decoded %T, not the 5×3 pattern", tc.name, img)
		}
		m, ok, err := imageio.ReadMetadata(p)
		if err != nil || ok != (tc.meta != nil) || (ok && (m.Prompt != want.Prompt || m.Seed != want.Seed)) {
			t.Errorf("%s: metadata %+v, %v, %v", tc.name, m, ok, err)
		}
	}
}
