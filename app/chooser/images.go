package chooser

import (
	"fmt"
	"path/filepath"

	"kleinbild/app/humanize"
	"kleinbild/app/imagefile"
)

// Images are the files of a chooser that picks images: those Kleinbild can read, with
// their thumbnails, several at once.
func Images() Files {
	return Files{
		Want: imagefile.IsImage,
		Check: func(p string) error {
			if !imagefile.IsImage(p) {
				return fmt.Errorf("%s is not an image Kleinbild can read", filepath.Base(p))
			}
			return nil
		},
		Summary: imagesSummary,
		Thumbs:  true,
	}
}

// imagesSummary describes a folder listed by an images chooser.
func imagesSummary(files, dirs int) string {
	what := humanize.CountList(files, "image", "images", dirs, "folder", "folders")
	switch {
	case files == 0 && dirs == 0:
		return "No images here."
	case files == 0:
		return "No images here (" + what + ")."
	}
	return what + ". Tick the images to add; you can tick images in several folders."
}
