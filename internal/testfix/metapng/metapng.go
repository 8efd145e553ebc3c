// Package metapng writes the test PNGs that carry Kleinbild's metadata. It stands apart from
// internal/testfix because it imports engine/imageio, whose own tests import testfix. Only
// _test.go files import it.
package metapng

import (
	"image"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/internal/testfix"
)

// Write writes testfix.Pattern(w, h) as dir/name, with meta when it is not nil (through
// imageio.WritePNG) or as a plain PNG without, and returns its path.
func Write(t testing.TB, dir, name string, w, h int, meta *imageio.Metadata) string {
	t.Helper()
	if meta == nil {
		return testfix.WritePNG(t, dir, name, w, h, nil)
	}
	return testfix.WritePNG(t, dir, name, w, h, func(path string, img image.Image) error {
		return imageio.WritePNG(path, img, *meta)
	})
}
