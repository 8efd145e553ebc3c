package app

// showLastViewed shows the image viewed last time once the gallery has loaded, unless the
// viewer already shows something (a run, or an image picked meanwhile).
func (g *galleryView) showLastViewed() {
	f := g.sh.Settings.LastViewed
	if _, shown := g.view.ShownEntry(); f == "" || shown || g.view.FollowsRun() || g.running() || g.sh.Gallery == nil || g.sh.Gallery.IndexOf(f) < 0 {
		return
	}
	g.SelectEntry(f, nil)
}
