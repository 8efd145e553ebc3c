package app

import "image"

// entryPicker is the gallery grid as the viewer picks images in it (galleryView). The
// runner's own is run.Gallery.
type entryPicker interface {
	Refresh()
	// NoteNew says when the filter hides the new image file.
	NoteNew(file string)
	// SelectEntry selects file and shows it; full is its decoded image when at hand.
	SelectEntry(file string, full image.Image)
}
