// Package saveas is what Save as… writes: a copy of a gallery PNG as PNG (the bytes) or as
// JPEG (re-encoded, the settings kept as text), and the format picker beside the name.
package saveas

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/imageio"
	"kleinbild/internal/atomicfile"
)

// Format is a format Save as… writes: its name in the picker and its file extension.
type Format struct{ Label, Ext string }

// formats are the formats Save as… offers. WebP is not among them: Go's image
// libraries read WebP but none writes it, and Kleinbild has no encoder of its own.
var formats = []Format{{"PNG", ".png"}, {"JPEG", ".jpg"}}

// jpegQuality is the quality of JPEG copies (as the CLI's default).
const jpegQuality = 92

// FormatOf is the format a file name asks for by its extension; an extension that is
// not written is an error that lists those that are.
func FormatOf(path string) (Format, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		return formats[0], nil
	case ".jpg", ".jpeg":
		return formats[1], nil
	case ".webp":
		return Format{}, fmt.Errorf("%s: Kleinbild cannot write WebP images (there is no WebP encoder); save as .png or .jpg", filepath.Base(path))
	default:
		return Format{}, fmt.Errorf("%s: Kleinbild writes .png or .jpg images, not %s", filepath.Base(path), ext)
	}
}

// NewFormatSelect makes the Save as… format picker: picking one changes the name's
// extension, and typing an extension picks its format.
func NewFormatSelect(name *widget.Entry) *widget.Select {
	var labels []string
	for _, f := range formats {
		labels = append(labels, f.Label)
	}
	sel := widget.NewSelect(labels, nil)
	if f, err := FormatOf(name.Text); err == nil {
		sel.SetSelected(f.Label)
	} else {
		sel.SetSelected(formats[0].Label)
	}
	syncing := false
	sel.OnChanged = func(label string) {
		if syncing {
			return
		}
		for _, f := range formats {
			if f.Label == label {
				syncing = true
				name.SetText(strings.TrimSuffix(name.Text, filepath.Ext(name.Text)) + f.Ext)
				syncing = false
			}
		}
	}
	prev := name.OnChanged
	name.OnChanged = func(s string) {
		if prev != nil {
			prev(s)
		}
		if f, err := FormatOf(s); err == nil && !syncing && sel.Selected != f.Label {
			syncing = true
			sel.SetSelected(f.Label)
			syncing = false
		}
	}
	return sel
}

// WriteCopy saves the gallery PNG src as target in the format its name asks for: a
// byte copy for PNG; for JPEG the pixels re-encoded, with the AUTOMATIC1111 "parameters"
// text in a comment segment (the CLI's -o e.jpg writes the same).
func WriteCopy(src, target string) error {
	f, err := FormatOf(target)
	if err != nil {
		return err
	}
	if f.Ext == ".png" {
		return copyFile(src, target)
	}
	img, err := imageio.Load(src)
	if err != nil {
		return fmt.Errorf("the image %s cannot be read: %w", filepath.Base(src), err)
	}
	meta, _, _ := imageio.ReadMetadata(src) // a copy without its settings is still a copy
	data, err := imageio.EncodeJPEG(img, meta, jpegQuality)
	if err != nil {
		return err
	}
	err = atomicfile.WriteOutput(target, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("the copy could not be saved: %w", err)
	}
	return nil
}
