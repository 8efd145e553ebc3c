package galleryui

// roomForSelecting hides, while selecting, the gallery's top row (sort, filter, folder) and
// its Trash button, which selecting does not use, so that the grid keeps two full rows of
// thumbnails at 1024×600 under the selection's bar (issue 36 item 15: about one showed).
func (g *View) roomForSelecting(on bool) {
	for _, o := range []interface {
		Show()
		Hide()
	}{g.topRow, g.TrashBar} {
		if on {
			o.Hide()
		} else {
			o.Show()
		}
	}
	if g.Root != nil {
		g.Root.Refresh()
	}
}
