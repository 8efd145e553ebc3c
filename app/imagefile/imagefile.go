// Package imagefile is what the app learns of an image file before using it: whether it
// is an image the engine reads, its size, whether it serves as a reference, and how it was
// made, in the words the window shows. It touches no UI state.
package imagefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"kleinbild/app/humanize"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// IsImage reports whether path has the extension of a format the engine reads.
func IsImage(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp":
		return true
	}
	return false
}

// CheckReference checks that path is an image file the engine can use as a reference,
// from its header. It does not block on special files (a FIFO is refused at once), so it
// may run off the UI goroutine.
func CheckReference(path string) error {
	name := filepath.Base(path)
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("cannot use %s as a reference: %w", name, err)
	case fi.IsDir():
		return fmt.Errorf("cannot use %s as a reference: it is a folder, not an image", name)
	case !IsImage(path):
		return fmt.Errorf("cannot use %s as a reference: it is not an image Kleinbild can read (%s)", name, imageio.Formats)
	}
	w, h, err := Size(path)
	if err != nil {
		return fmt.Errorf("cannot use %s as a reference: %w", name, err)
	}
	if err := imageio.CheckReference(w, h); err != nil {
		return fmt.Errorf("cannot use %s: %w", name, err)
	}
	return nil
}

// CheckReferences runs CheckReference on each path (any goroutine).
func CheckReferences(paths []string) []error {
	checks := make([]error, len(paths))
	for i, p := range paths {
		checks[i] = CheckReference(p)
	}
	return checks
}

// Size reads an image file's size from its header (regular files only), after checking
// that the file is whole (imageio.Probe: a truncated PNG is refused).
func Size(path string) (w, h int, err error) {
	cfg, err := imageio.Probe(path, nil) // the CLI's words for a bad file
	if err != nil {
		return 0, 0, err
	}
	return cfg.Width, cfg.Height, nil
}

// Describe is a one-line summary of how an image was made.
func Describe(m imageio.Metadata) string {
	parts := []string{fmt.Sprintf("%d × %d", m.Width, m.Height), fmt.Sprintf("seed %d", m.Seed)}
	if m.Steps > 0 {
		parts = append(parts, fmt.Sprintf("%d steps", m.Steps))
	}
	if m.Guidance > 0 && m.Guidance != 1 {
		parts = append(parts, fmt.Sprintf("guidance %.1f", m.Guidance))
	}
	if m.Schedule != "" {
		parts = append(parts, m.Schedule)
	}
	if m.Noise == engine.NoiseStable {
		parts = append(parts, "size-stable noise")
	}
	if m.Duration > 0 {
		parts = append(parts, humanize.Duration(m.Duration))
	}
	if model := strings.TrimSpace(m.Model + " " + m.Variant); model != "" {
		parts = append(parts, model)
	}
	if m.Precision != "" { // "fast": the matrix units' float16 products (issue 34)
		parts = append(parts, m.Precision+" precision")
	}
	return strings.Join(parts, " · ")
}

// FormatStrength writes an adapter's strength as the window shows it: two decimals.
func FormatStrength(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// AdaptersDetail is the line of an image's details naming its adapters ("" for none).
func AdaptersDetail(as []imageio.Adapter) string {
	if len(as) == 0 {
		return ""
	}
	var parts []string
	for _, a := range as {
		parts = append(parts, fmt.Sprintf("%s (%s)", a.File, FormatStrength(float64(a.Strength))))
	}
	return "\nAdapters: " + strings.Join(parts, ", ")
}
