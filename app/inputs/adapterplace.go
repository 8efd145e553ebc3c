package inputs

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// addFromFolder adds the adapter at path, picked in the LoRA folder's list, and keeps that
// list where it is on screen: the form scrolls by the height the Adapters list above it
// grew (issue 28 item 10: adding one moved the list under the pointer, so the next click
// hit another file).
func (s *Adapters) addFromFolder(path string) <-chan struct{} {
	before := s.upper.MinSize().Height
	return s.addFilesThen([]string{path}, false, func() { s.keepBelowInPlace(before) })
}

// keepBelowInPlace scrolls the form so that what lies below the Adapters list stays where
// it was when the list was before tall.
func (s *Adapters) keepBelowInPlace(before float32) {
	delta := s.upper.MinSize().Height - before
	sc, ok := s.formScroll.(*container.Scroll)
	if !ok || delta == 0 {
		return
	}
	sc.Refresh() // lays the taller form out first
	maxY := max(sc.Content.MinSize().Height-sc.Size().Height, 0)
	sc.ScrollToOffset(fyne.NewPos(sc.Offset.X, min(max(sc.Offset.Y+delta, 0), maxY)))
}
