package app

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/imageio"
	"kleinbild/internal/atomicfile"
)

// saveFormat is a format Save as… writes.
type saveFormat struct{ label, ext string }

// saveFormats are the formats Save as… offers. WebP is not among them: Go's image
// libraries read WebP but none writes it, and Kleinbild has no encoder of its own.
var saveFormats = []saveFormat{{"PNG", ".png"}, {"JPEG", ".jpg"}}

// jpegQuality is the quality of JPEG copies (as the CLI's default).
const jpegQuality = 92

// saveFormatOf is the format a file name asks for by its extension; an extension that is
// not written is an error that lists those that are.
func saveFormatOf(path string) (saveFormat, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		return saveFormats[0], nil
	case ".jpg", ".jpeg":
		return saveFormats[1], nil
	case ".webp":
		return saveFormat{}, fmt.Errorf("%s: Kleinbild cannot write WebP images (there is no WebP encoder); save as .png or .jpg", filepath.Base(path))
	default:
		return saveFormat{}, fmt.Errorf("%s: Kleinbild writes .png or .jpg images, not %s", filepath.Base(path), ext)
	}
}

// newFormatSelect makes the Save as… format picker: picking one changes the name's
// extension, and typing an extension picks its format.
func newFormatSelect(name *widget.Entry) *widget.Select {
	var labels []string
	for _, f := range saveFormats {
		labels = append(labels, f.label)
	}
	sel := widget.NewSelect(labels, nil)
	if f, err := saveFormatOf(name.Text); err == nil {
		sel.SetSelected(f.label)
	} else {
		sel.SetSelected(saveFormats[0].label)
	}
	syncing := false
	sel.OnChanged = func(label string) {
		if syncing {
			return
		}
		for _, f := range saveFormats {
			if f.label == label {
				syncing = true
				name.SetText(strings.TrimSuffix(name.Text, filepath.Ext(name.Text)) + f.ext)
				syncing = false
			}
		}
	}
	prev := name.OnChanged
	name.OnChanged = func(s string) {
		if prev != nil {
			prev(s)
		}
		if f, err := saveFormatOf(s); err == nil && !syncing && sel.Selected != f.label {
			syncing = true
			sel.SetSelected(f.label)
			syncing = false
		}
	}
	return sel
}

// writeImageCopy saves the gallery PNG src as target in the format its name asks for: a
// byte copy for PNG; for JPEG the pixels re-encoded, with the AUTOMATIC1111 "parameters"
// text in a comment segment (the CLI's -o e.jpg writes the same).
func writeImageCopy(src, target string) error {
	f, err := saveFormatOf(target)
	if err != nil {
		return err
	}
	if f.ext == ".png" {
		return copyFileAtomic(src, target)
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
